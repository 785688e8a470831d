import Testing
import ImagePipeline
@testable import Gallery

@Suite struct RouterTests {
    let id = "0123456789ab"

    @Test func routesEveryPage() {
        #expect(Router.route(path: "/", query: "") == .index(page: 1))
        #expect(Router.route(path: "/", query: "page=3") == .index(page: 3))
        #expect(Router.route(path: "/album/\(id)", query: "page=2") == .album(id: id, page: 2))
        #expect(Router.route(path: "/photo/\(id)", query: "") == .photo(id: id))
        #expect(Router.route(path: "/album/\(id)/photos", query: "") == .albumPhotos(id: id, page: 1))
        #expect(Router.route(path: "/album/\(id)/photos", query: "page=4") == .albumPhotos(id: id, page: 4))
        #expect(Router.route(path: "/album/\(id)/photos", query: "page=0") == .notFound)
        #expect(Router.route(path: "/album/\(id)/pictures", query: "") == .notFound)
        #expect(Router.route(path: "/original/\(id)", query: "") == .original(id: id))
        #expect(Router.route(path: "/img/\(id)/240x240", query: "v=abc123") == .image(id: id, spec: SizeSpec(parsing: "240x240")!, format: .standard, version: "abc123"))
        #expect(Router.route(path: "/img/\(id)/960", query: "") == .image(id: id, spec: SizeSpec(parsing: "960")!, format: .standard, version: nil))
        #expect(Router.route(path: "/img/\(id)/480x480.webp", query: "v=abc123") == .image(id: id, spec: SizeSpec(parsing: "480x480")!, format: .webp, version: "abc123"))
        // Wide colour renders carry their mode in the version.
        #expect(Router.route(path: "/img/\(id)/960.webp", query: "v=abc123-p3") == .image(id: id, spec: SizeSpec(parsing: "960")!, format: .webp, version: "abc123-p3"))
        #expect(Router.route(path: "/healthz", query: "") == .healthz)
        #expect(Router.route(path: "/metrics", query: "") == .metrics)
    }

    @Test func refusesMalformedIdsSpecsAndPages() {
        for path in ["/album/0123456789AB", "/album/0123456789a", "/album/0123456789abc", "/photo/", "/photo",
                     "/album/\(id)/", "//", "/index.html", "/album//\(id)"] {
            #expect(Router.route(path: path, query: "") == .notFound, "\(path)")
        }
        // A size segment that is no size: 400 for a known photo (404 for an unknown id).
        for size in ["", "240x", "x240", "240x240x2", "-1", "1234567", "0240", "0"] {
            #expect(Router.route(path: "/img/\(id)/\(size)", query: "") == .badImageSize(id: id), "\(size)")
        }
        #expect(Router.route(path: "/", query: "page=0") == .notFound)
        #expect(Router.route(path: "/", query: "page=-1") == .notFound)
        #expect(Router.route(path: "/", query: "page=abc") == .notFound)
        #expect(Router.route(path: "/", query: "page=99999999999999999999") == .notFound)
        // A malformed version is treated as absent (the handler redirects to the current one).
        #expect(Router.route(path: "/img/\(id)/480", query: "v=../../x") == .image(id: id, spec: SizeSpec(parsing: "480")!, format: .standard, version: nil))
        for v in ["abc-", "-p3", "abc-p3-x", "ABC", "abc-P3", "abc-toolongtag"] {
            #expect(Router.route(path: "/img/\(id)/480", query: "v=\(v)") == .image(id: id, spec: SizeSpec(parsing: "480")!, format: .standard, version: nil), "\(v)")
        }
        // One spelling per format: other extensions, upper case or a second dot name nothing.
        for size in ["480.jpg", "480.WEBP", "480.webp.webp", "480.", "480.png", "480..webp", ".webp"] {
            #expect(Router.route(path: "/img/\(id)/\(size)", query: "") == (size == ".webp" ? .badImageSize(id: id) : .notFound), "\(size)")
        }
    }

    @Test func traversalAndEncodedVariantsNeverRoute() {
        let attempts = [
            "/album/../../etc/passwd", "/album/%2e%2e/%2e%2e/etc/passwd", "/album/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
            "/album/..%2f..%2fetc%2fpasswd", "/album/%252e%252e/etc/passwd", "/album/..\\..\\etc\\passwd",
            "/album/%5c..%5cetc", "/album/\(id)%00", "/album/\u{0}", "/photo/..", "/original/../\(id)",
            "/img/\(id)/../../../etc/passwd", "/img/..%2f/240", "/static/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
            "/album/\(id)/..", "/album/./\(id)", "/photo/%30123456789ab",
        ]
        for path in attempts {
            #expect(Router.route(path: path, query: "") == .notFound, "\(path)")
        }
    }

    @Test func queryDecoding() {
        #expect(QueryString.parse("a=1&b=x%20y&c=+z&a=2") == ["a": "1", "b": "x y", "c": " z"])
        #expect(QueryString.parse("a=%zz&b") == ["a": "", "b": ""])
        #expect(QueryString.percentDecode("%e2%82%ac") == "€")
        #expect(QueryString.percentDecode("%ff") == nil)
    }

    @Test func stableIDs() {
        let a = StableID.make("item:Trips/Flower.jpg")
        #expect(a == StableID.make("item:Trips/Flower.jpg"))
        #expect(a != StableID.make("item:Trips/flower.jpg"))
        #expect(StableID.isWellFormed(a))
        #expect(a.count == 12)
        #expect(!StableID.isWellFormed("0123456789aG"))
    }
}

@Suite struct HTTPDateTests {
    @Test func imfFixdate() {
        #expect(HTTPResponses.httpDate(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPResponses.httpDate(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}
