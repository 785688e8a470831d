import FastCGI
import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Private albums and share links, through the handler: what the public routes show of a
/// private album (nothing, anywhere), and which tokens open what (only the right one, whole).
@Suite struct ShareTests {
    /// The test library plus, in gallery.json, "Trips/2024 Summer" private, and two private
    /// albums of their own: "Secret" (with a sub-album "Secret/Deeper") and "Other".
    final class Fixture {
        let h: AppTests.Harness
        var app: GalleryApp { h.app }
        let privateAlbums: [CatalogAlbum]
        let privateItems: [CatalogItem]
        /// Words of private titles and file names that must never show on a public page.
        let privateWords = ["2024 Summer", "Stream", "alert(1)", "Secret", "Deeper", "Hidden Cat", "Deep Sea", "Lonely"]

        init() throws {
            let library = try TestLibrary.make()
            let fm = FileManager.default
            for dir in ["Secret/Deeper", "Other"] { try fm.createDirectory(atPath: library.root + "/" + dir, withIntermediateDirectories: true) }
            try fm.copyItem(atPath: Fixtures.jpeg("flower_420_q75.jpg"), toPath: library.root + "/Secret/Hidden Cat.jpg")
            try fm.copyItem(atPath: Fixtures.jpeg("stream_420_q80.jpg"), toPath: library.root + "/Secret/Deeper/Deep Sea.jpg")
            try fm.copyItem(atPath: Fixtures.jpeg("statue_420_q75.jpg"), toPath: library.root + "/Other/Lonely.jpg")
            let manifest = ["albums": ["Trips/2024 Summer": ["private": true], "Secret": ["private": true, "title": "Secret"],
                                       "Other": ["private": true]]]
            try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: library.root + "/gallery.json"))
            h = try AppTests.Harness(library: library)
            let catalog = h.app.catalog
            privateAlbums = catalog.albums.values.filter { $0.privateRoot != nil }
            let ids = Set(privateAlbums.map(\.id))
            privateItems = catalog.items.values.filter { ids.contains($0.albumID) }
        }

        func album(_ path: String) -> CatalogAlbum { app.catalog.albums.values.first { $0.relativePath == path }! }
        func key() throws -> [UInt8] { try #require(app.shares.currentKey()) }
        func token(_ path: String) throws -> String { ShareLinks.token(for: album(path), key: try key()) }

        /// Status, headers and the whole body, a streamed one included.
        func get(_ uri: String, headers: [String: String] = [:]) -> (status: Int, location: String?, type: String?, body: [UInt8]) {
            let r = h.send(uri, headers: headers)
            var body = r.body
            if let stream = r.stream {
                body = []
                stream.produce { body.append(contentsOf: $0); return true }
                stream.finished()
            }
            return (r.status, r.header("Location"), r.header("Content-Type"), body)
        }
    }

    static func links(in html: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "(?:href|src|data-viewer-feed)=\"([^\"]+)\"|srcset=\"([^\"]+)\"")
        var out: [String] = []
        for m in pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            if let r = Range(m.range(at: 1), in: html) { out.append(String(html[r]).replacingOccurrences(of: "&amp;", with: "&")) }
            if let r = Range(m.range(at: 2), in: html) {
                out += html[r].split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
            }
        }
        return out
    }

    @Test func privacyIsInheritedFromTheManifest() throws {
        let f = try Fixture()
        #expect(Set(f.privateAlbums.map(\.relativePath)) == ["Trips/2024 Summer", "Secret", "Secret/Deeper", "Other"])
        #expect(f.album("Secret/Deeper").privateRoot == f.album("Secret").id)
        #expect(f.album("Trips").privateRoot == nil)
        #expect(f.privateItems.count == 5)
    }

    /// The views share the full catalog's item table: what they leave out must still be absent
    /// from every way of reading their items (lookup, count, listing).
    @Test func viewsHideTheItemsOfAlbumsTheyLeaveOut() throws {
        let f = try Fixture()
        let full = f.app.catalog
        let view = full.publicView()
        for item in f.privateItems { #expect(view.items[item.id] == nil && full.items[item.id] != nil) }
        #expect(view.items.count == full.items.count - f.privateItems.count)
        #expect(Set(view.items.keys) == Set(full.items.keys).subtracting(f.privateItems.map(\.id)))
        #expect(view.items.values.allSatisfy { view.albums[$0.albumID] != nil })
        let secret = try #require(full.sharedView(of: f.album("Secret").id, linkPrefix: "/s/x"))
        #expect(Set(secret.items.values.map(\.fileName)) == ["Hidden Cat.jpg", "Deep Sea.jpg"])
        #expect(secret.items.count == 2)
        let trips = try #require(full.sharedView(of: f.album("Trips").id, linkPrefix: "/s/y"))
        #expect(trips.items.values.allSatisfy { $0.albumID != f.album("Trips/2024 Summer").id })
        #expect(trips.items.count == trips.albums.values.reduce(0) { $0 + $1.itemIDs.count })
    }

    /// Every page, feed and ZIP reachable from "/" by following links: no private id, title
    /// or file name anywhere, and counts that leave the private photos out.
    @Test func privateAlbumsAreListedNowhere() throws {
        let f = try Fixture()
        let secrets = f.privateAlbums.map(\.id) + f.privateItems.map(\.id)
        var queue = ["/", "/healthz", "/metrics"]
        var seen = Set<String>()
        var pages = 0
        while let uri = queue.popLast() {
            guard seen.insert(uri).inserted, uri.hasPrefix("/"), !uri.hasPrefix("/static/") else { continue }
            let r = f.get(uri)
            #expect(r.status == 200 || r.status == 302, "\(uri)")
            let text = String(decoding: r.body, as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "\(uri) names private \(secret)") }
            if r.type?.hasPrefix("text/html") == true || r.type?.hasPrefix("application/json") == true {
                for word in f.privateWords { #expect(!text.contains(word), "\(uri) shows private \(word)") }
                pages += 1
            }
            if let location = r.location { queue.append(location) }
            if r.type?.hasPrefix("text/html") == true {
                queue += Self.links(in: text).filter { !$0.contains("/img/") }
            } else if r.type?.hasPrefix("application/json") == true {
                queue += text.components(separatedBy: "\"url\":\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
            } else if r.type == "application/zip" {
                for word in f.privateWords { #expect(!text.contains(word), "\(uri) zips private \(word)") }
            }
        }
        #expect(pages >= 10)
        let root = String(decoding: f.get("/").body, as: UTF8.self)
        // 10 photos in the library, 5 of them private.
        #expect(root.contains("2 albums · 5 photos"))
        #expect(String(decoding: f.get("/healthz").body, as: UTF8.self).contains("items 5"))
        let trips = String(decoding: f.get("/album/\(f.album("Trips").id)").body, as: UTF8.self)
        #expect(trips.contains("4 photos") && !trips.contains("1 album"))
    }

    @Test func privateIdsAre404OnPublicRoutes() throws {
        let f = try Fixture()
        for album in f.privateAlbums {
            for uri in ["/album/\(album.id)", "/album/\(album.id)?page=2", "/album/\(album.id)/photos", "/album/\(album.id)/download",
                        "/album/\(album.id)/download?sub=1"] {
                let r = f.get(uri)
                #expect(r.status == 404 && r.location == nil, "\(uri)")
            }
        }
        for item in f.privateItems {
            let version = try f.app.pipeline.version(url: item.sourceURL)
            for uri in ["/photo/\(item.id)", "/original/\(item.id)", "/img/\(item.id)/240x240", "/img/\(item.id)/240x240?v=\(version)",
                        "/img/\(item.id)/960?v=\(version)", "/img/\(item.id)/0240", "/img/\(item.id)/123"] {
                let r = f.get(uri)
                #expect(r.status == 404 && r.location == nil, "\(uri)")
            }
        }
    }

    @Test func shareLinkOpensTheAlbumAndEveryLinkCarriesTheToken() throws {
        let f = try Fixture()
        let token = try f.token("Secret")
        let prefix = "/s/\(token)"
        let page = f.get(prefix + "/")
        #expect(page.status == 200)
        #expect(f.h.send(prefix + "/").header("X-Robots-Tag") == "noindex, nofollow")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("Hidden Cat") && html.contains("Deeper"))
        #expect(!html.contains("Trips") && !html.contains("Lonely"))
        var queue = Self.links(in: html)
        var seen = Set<String>()
        var images = 0
        while let uri = queue.popLast() {
            guard seen.insert(uri).inserted, !uri.hasPrefix("/static/") else { continue }
            #expect(uri.hasPrefix(prefix + "/"), "link without the token: \(uri)")
            let r = f.get(uri)
            #expect(r.status == 200 || r.status == 302, "\(uri): \(r.status)")
            if let location = r.location { queue.append(location) }
            if r.type == "text/html; charset=utf-8" {
                queue += Self.links(in: String(decoding: r.body, as: UTF8.self))
            } else if r.type?.hasPrefix("application/json") == true {
                let text = String(decoding: r.body, as: UTF8.self)
                #expect(!text.contains("\"/photo/") && !text.contains("\"/img/") && !text.contains("\"/album/"), "\(uri)")
            } else if r.type == "image/jpeg" {
                images += 1
            }
        }
        #expect(images >= 4)
        #expect(seen.contains { $0.contains("/original/") } && seen.contains { $0.hasSuffix("/download?sub=1") })
        // The ZIP of the shared album holds its photos and, with sub=1, its sub-album.
        let zip = String(decoding: f.get(prefix + "/album/\(f.album("Secret").id)/download?sub=1").body, as: UTF8.self)
        #expect(zip.contains("Secret/Hidden Cat.jpg") && zip.contains("Secret/Deeper/Deep Sea.jpg"))
        // The same photo without the token, or under another album's token, is 404.
        let photo = f.privateItems.first { $0.fileName == "Hidden Cat.jpg" }!
        let version = try f.app.pipeline.version(url: photo.sourceURL)
        #expect(f.get("\(prefix)/img/\(photo.id)/240x240?v=\(version)").status == 200)
        #expect(f.get("/img/\(photo.id)/240x240?v=\(version)").status == 404)
        let other = try f.token("Other")
        for uri in ["/photo/\(photo.id)", "/img/\(photo.id)/240x240?v=\(version)", "/original/\(photo.id)",
                    "/album/\(f.album("Secret").id)", "/album/\(f.album("Secret/Deeper").id)"] {
            #expect(f.get("/s/\(other)" + uri).status == 404, "other token on \(uri)")
        }
        // Nothing outside the shared album: its parent, public albums, health and metrics.
        for uri in ["/album/\(f.album("Trips").id)", "/album/\(f.app.catalog.rootID)", "/healthz", "/metrics"] {
            #expect(f.get(prefix + uri).status == 404, "\(uri) under the share")
        }
    }

    @Test func forgedTruncatedAndGuessedTokensOpenNothing() throws {
        let f = try Fixture()
        let secret = f.album("Secret")
        let token = try f.token("Secret")
        #expect(token.utf8.count == ShareLinks.tokenLength)
        #expect(f.get("/s/\(token)/").status == 200)
        var forged: [String] = [String(token.dropLast()), String(token.dropLast(10)), String(token.prefix(12)), token + "A",
                                token.uppercased(), String(token.reversed())]
        // Each character changed in turn.
        let chars = Array(token)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for i in chars.indices {
            var copy = chars
            copy[i] = alphabet[(alphabet.firstIndex(of: copy[i])! + 1) % alphabet.count]
            forged.append(String(copy))
        }
        // Another album's MAC with this album's id, and the reverse.
        let other = try f.token("Other")
        forged.append(secret.id + other.dropFirst(12))
        forged.append(String(other.prefix(12)) + token.dropFirst(12))
        // A MAC made with another key.
        forged.append(ShareLinks.token(for: secret, key: Array(repeating: 7, count: 32)))
        // Enumeration: random tokens of the right shape, some with real album ids.
        var rng = SystemRandomNumberGenerator()
        let ids = f.app.catalog.albums.keys.sorted()
        for n in 0..<300 {
            let mac = String((0..<22).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            forged.append((n % 2 == 0 ? ids[n % ids.count] : StableID.make("guess\(n)")) + mac)
        }
        for bad in forged where bad != token {
            #expect(f.get("/s/\(bad)/").status == 404, "\(bad)")
            #expect(f.get("/s/\(bad)/album/\(secret.id)/download").status == 404, "\(bad)")
        }
        // Public albums have no token of their own beyond the key's: a public album's link is
        // valid (it frames public content) but never reaches private albums inside it.
        let trips = try f.token("Trips")
        let framed = String(decoding: f.get("/s/\(trips)/").body, as: UTF8.self)
        #expect(framed.contains("Flower") && !framed.contains("2024 Summer"))
        #expect(f.get("/s/\(trips)/album/\(f.album("Trips/2024 Summer").id)").status == 404)
    }

    @Test func aLinkPastedWithoutItsSlashRedirectsOnlyWhenValid() throws {
        let f = try Fixture()
        let token = try f.token("Secret")
        let bare = f.get("/s/\(token)")
        #expect(bare.status == 302 && bare.location == "/s/\(token)/")
        #expect(f.get("/s/\(token)?page=2").location == "/s/\(token)/?page=2")
        #expect(f.get("/s/\(token.dropLast())").status == 404)
    }

    @Test func replacingTheKeyRevokesEveryLink() throws {
        let f = try Fixture()
        let token = try f.token("Secret")
        #expect(f.get("/s/\(token)/").status == 200)
        let keyPath = f.app.shares.keyPath
        var st = stat()
        #expect(stat(keyPath, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(!ShareKey.isExposed(keyPath))
        chmod(keyPath, 0o644)
        #expect(ShareKey.isExposed(keyPath))
        try FileManager.default.removeItem(atPath: keyPath)
        #expect(f.get("/s/\(token)/").status == 404)
        let fresh = try ShareKey.loadOrCreate(keyPath)
        #expect(f.get("/s/\(token)/").status == 404)
        #expect(f.get("/s/\(ShareLinks.token(for: f.album("Secret"), key: fresh))/").status == 200)
    }

    @Test func shareScopeSplitsThePath() {
        func split(_ path: String) -> [String]? { Router.shareScope(path: path).map { [$0.token, $0.rest] } }
        #expect(split("/s/abc/") == ["abc", "/"])
        #expect(split("/s/abc") == ["abc", "/"])
        #expect(split("/s/abc/photo/0123456789ab") == ["abc", "/photo/0123456789ab"])
        for path in ["/s//", "/s/", "/s/a%2e/", "/s/a.b/", "/sx/abc/", "/album/abc", "/s/" + String(repeating: "a", count: 65) + "/"] {
            #expect(split(path) == nil, "\(path)")
        }
        #expect(Router.route(path: "/album/0123456789ab/download", query: "sub=1") == .albumDownload(id: "0123456789ab", subalbums: true))
        #expect(Router.route(path: "/album/0123456789ab/download", query: "") == .albumDownload(id: "0123456789ab", subalbums: false))
        #expect(Router.route(path: "/album/0123456789ab/download/x", query: "") == .notFound)
    }

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than a block).
    @Test func hmacMatchesRFC4231() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(HMACSHA256.mac(key: Array(repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(hex(HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(hex(HMACSHA256.mac(key: Array(repeating: 0xaa, count: 131),
                                   message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2]))
    }

    @Test func shareLinkMakerMatchesTheServer() throws {
        let f = try Fixture()
        let base = (f.h.library.root as NSString).deletingLastPathComponent
        let link = try ShareLinkMaker.link(album: "Secret/", root: f.h.library.root, cacheDirectory: base + "/cache", keyFile: nil)
        #expect(link.path == "/s/\(try f.token("Secret"))/" && link.isPrivate)
        let byID = try ShareLinkMaker.link(album: f.album("Other").id, root: f.h.library.root, cacheDirectory: base + "/cache", keyFile: nil)
        #expect(byID.path == "/s/\(try f.token("Other"))/")
        #expect(throws: ShareLinkMaker.Problem.self) {
            try ShareLinkMaker.link(album: "Nope", root: f.h.library.root, cacheDirectory: base + "/cache", keyFile: nil)
        }
    }
}
