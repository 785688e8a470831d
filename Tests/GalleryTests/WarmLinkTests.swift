import Gallery
import Testing

/// What `gallery warm --url` reads from a page, and where each link points.
@Suite struct WarmLinkTests {
    private func links(_ html: String) -> HTMLLinks { HTMLLinkExtractor.links(in: Array(html.utf8)) }

    @Test func srcsetCandidatesWithDescriptors() {
        #expect(HTMLLinkExtractor.srcsetURLs("/a.jpg 240w, /b.jpg 480w,/c.jpg 720w") == ["/a.jpg", "/b.jpg", "/c.jpg"])
        #expect(HTMLLinkExtractor.srcsetURLs("  /x.jpg 1x ,\n /y.jpg 2x") == ["/x.jpg", "/y.jpg"])
        #expect(HTMLLinkExtractor.srcsetURLs("/one.jpg") == ["/one.jpg"])
        // A comma ending the URL ends the candidate; commas inside parentheses of a
        // descriptor do not split.
        #expect(HTMLLinkExtractor.srcsetURLs("/a.jpg,/b.jpg 2x") == ["/a.jpg,/b.jpg"])
        #expect(HTMLLinkExtractor.srcsetURLs("/a.jpg, /b.jpg") == ["/a.jpg", "/b.jpg"])
        #expect(HTMLLinkExtractor.srcsetURLs("/a.jpg 100w (x, y), /b.jpg 200w") == ["/a.jpg", "/b.jpg"])
        #expect(HTMLLinkExtractor.srcsetURLs(" , ,") == [])
    }

    @Test func imgPictureSourceAndEntities() {
        let html = """
            <!doctype html><html><head><title>a <img src="/no-title.jpg"></title>
            <script>var s = '<img src="/no-script.jpg">';</script><style>a{background:url(/no.css)}</style></head>
            <body><!-- <img src="/no-comment.jpg"> -->
            <a href="/album/1?page=2&amp;x=1">next</a>
            <picture><source type="image/webp" srcset="/img/1/240x240.webp?v=ab 240w, /img/1/480x480.webp?v=ab 480w">
            <IMG SRC='/img/1/240x240?v=ab' srcset="/img/1/240x240?v=ab 240w,/img/1/480x480?v=ab&#38;q=1 480w" alt=x></picture>
            <img src=/img/2/960?v=cd width=10><img alt="no src"><img src="/img/3/1?v=&#x61;&quot;">
            <video><source src="/clip.mp4"></video>
            <a href = "photo.html" >rel</a><area href="/area">
            """
        let l = links(html)
        #expect(l.pages == ["/album/1?page=2&x=1", "photo.html", "/area"])
        #expect(l.images == ["/img/1/240x240.webp?v=ab", "/img/1/480x480.webp?v=ab", "/img/1/240x240?v=ab",
                             "/img/1/240x240?v=ab", "/img/1/480x480?v=ab&q=1", "/img/2/960?v=cd", "/img/3/1?v=a\""])
        #expect(l.base == nil)
        #expect(links("<base href='/sub/'><a href=x>").base == "/sub/")
        // Broken markup loses links, never more.
        #expect(links("<img src=\"/unterminated").images == ["/unterminated"])
        #expect(links("<a href=\"/x\"").pages == ["/x"])
        #expect(links("<").pages.isEmpty && links("<!--").images.isEmpty && links("&amp;<a").pages.isEmpty)
        #expect(HTMLLinkExtractor.links(in: [0x3C, 0x61, 0x20, 0xFF, 0x3D, 0x22, 0xC3]).pages.isEmpty)
    }

    @Test func linksStayOnTheOrigin() throws {
        let site = try #require(SiteURL("http://127.0.0.1:8080/"))
        #expect(site.start == "/" && site.hostHeader == "127.0.0.1:8080")
        let page = "/album/abc?page=2"
        #expect(site.resolve("?page=3", against: page) == "/album/abc?page=3")
        #expect(site.resolve("/photo/1#top", against: page) == "/photo/1")
        #expect(site.resolve("#top", against: page) == nil)
        #expect(site.resolve("def", against: page) == "/album/def")
        #expect(site.resolve("../../../x", against: page) == "/x")
        #expect(site.resolve("/a/./b/../c", against: page) == "/a/c")
        #expect(site.resolve("http://127.0.0.1:8080/img/1/240?v=1", against: page) == "/img/1/240?v=1")
        #expect(site.resolve("HTTP://127.0.0.1:8080/y", against: page) == "/y")
        #expect(site.resolve("//127.0.0.1:8080/z", against: page) == "/z")
        #expect(site.resolve("a b.jpg", against: "/") == "/a%20b.jpg")
        for other in ["http://127.0.0.1:8081/x", "https://127.0.0.1:8080/x", "http://example.org/x", "//example.org/x",
                      "mailto:a@b", "javascript:alert(1)", "data:image/png;base64,AA", "http://u@127.0.0.1:8080/"] {
            #expect(site.resolve(other, against: page) == nil, "\(other)")
        }
        #expect(SiteURL("https://example.org/") == nil)
        #expect(SiteURL("http://:80/") == nil)
        #expect(SiteURL("http://host:99999/") == nil)
        #expect(SiteURL("http://Example.org")?.start == "/")
        #expect(SiteURL("http://example.org/gallery/?page=2")?.start == "/gallery/?page=2")
    }
}
