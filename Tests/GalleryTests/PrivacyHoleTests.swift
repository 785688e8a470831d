import FastCGI
import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// The holes of the "private means private" issue, each closed on its own: ZIPs over a folder
/// swapped for a symlink, key rotation and revocation, the share scope's headers, index repairs
/// by the writer only, and rescans under a stream of change events that never pauses.
@Suite struct PrivacyHoleTests {
    @Test func aZipNeverStreamsAFileFromOutsideTheLibrary() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let catalog = CatalogScanner(root: library.root, siteTitle: "T").scan().catalog
        let summer = try #require(catalog.albums.values.first { $0.relativePath == "Trips/2024 Summer" })
        let pipeline = ImagePipeline(configuration: PipelineConfiguration(
            cacheDirectory: (library.root as NSString).deletingLastPathComponent + "/cache", libraryRoot: library.root))
        let entries = ZipContents.entries(albumID: summer.id, subalbums: false, catalog: catalog, pipeline: pipeline)
        #expect(entries.count == 2 && entries.allSatisfy { $0.root == library.root })
        // After the scan, the folder is swapped for a symlink to a folder outside the library
        // holding files of the same names and sizes but other bytes.
        let outside = (library.root as NSString).deletingLastPathComponent + "/outside"
        let fm = FileManager.default
        try fm.moveItem(atPath: library.root + "/Trips/2024 Summer", toPath: outside)
        for name in try fm.contentsOfDirectory(atPath: outside) {
            let path = outside + "/" + name
            let secret = [UInt8](repeating: 0x5A, count: try #require(fm.contents(atPath: path)).count)
            try Data(secret).write(to: URL(fileURLWithPath: path))
        }
        try fm.createSymbolicLink(atPath: library.root + "/Trips/2024 Summer", withDestinationPath: outside)
        let layout = ZipLayout(entries: entries)
        var sent: [UInt8] = []
        #expect(throws: ZipStreamer.Stop.self) {
            try ZipStreamer(layout: layout, checksums: ZipChecksums()).write(0..<layout.totalLength) { sent.append(contentsOf: $0); return true }
        }
        let run = [UInt8](repeating: 0x5A, count: 64)
        #expect(!sent.indices.dropLast(63).contains { sent[$0..<($0 + 64)].elementsEqual(run) }, "outside bytes were streamed")
        // Every other reader refuses the same way.
        #expect(throws: PipelineError.self) { _ = try LibraryFile(path: library.root + "/Trips/2024 Summer/Stream.jpg", root: library.root) }
        #expect(throws: PipelineError.self) { try FileIndexing.read(path: library.root + "/Trips/2024 Summer/Stream.jpg", root: library.root) }
    }

    @Test func aFifoInAPhotosPlaceIsRefusedWithoutHanging() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let path = library.root + "/Trips/Flower.jpg"
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o644) == 0)
        #expect(throws: PipelineError.self) { _ = try LibraryFile(path: path, root: library.root) }
    }

    /// Rotation keeps old links for the grace period (by the injected clock), revocation ends
    /// them all; tokens name their key.
    @Test func rotationGraceAndRevocation() throws {
        let dir = NSTemporaryDirectory() + "share-keys-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let keyPath = dir + "/share.key"
        let clock = ManualSeconds(1_000_000)
        let links = ShareLinks(keyPath: keyPath, now: { clock.value }, log: { _ in })
        let album = CatalogAlbum(id: StableID.make("album:Family"), parentID: nil, relativePath: "Family", title: "Family",
                                 caption: nil, albumIDs: [], itemIDs: [])
        let catalog = Catalog(siteTitle: "T", rootID: album.id, albums: [album.id: album], items: [:])
        let first = ShareLinks.token(for: album, key: try ShareKey.loadOrCreate(keyPath))
        #expect(links.album(forToken: first, in: catalog) == album)

        try ShareLinkMaker.rotate(cacheDirectory: dir, keyFile: nil, grace: 3600, now: clock.value)
        let second = ShareLinks.token(for: album, key: try #require(links.currentKey()))
        #expect(second != first && second.dropFirst(12).prefix(4) != first.dropFirst(12).prefix(4))
        #expect(links.album(forToken: first, in: catalog) == album, "the old link keeps opening during the grace period")
        #expect(links.album(forToken: second, in: catalog) == album)
        // A first-format token (no key id) under the old key opens during the grace too.
        let oldKey = try #require(ShareKeyring.load(keyPath)?.previous?.key)
        let legacy = album.id + first.dropFirst(16)
        #expect(legacy.utf8.count == ShareLinks.legacyTokenLength)
        #expect(links.album(forToken: String(legacy), in: catalog) == album)
        #expect(ShareLinks.keyID(oldKey) == first.dropFirst(12).prefix(4))

        clock.value += 3600
        #expect(links.album(forToken: first, in: catalog) == nil, "the grace period is over")
        #expect(links.album(forToken: String(legacy), in: catalog) == nil)
        #expect(links.album(forToken: second, in: catalog) == album)

        try ShareLinkMaker.rotate(cacheDirectory: dir, keyFile: nil, grace: 3600, now: clock.value)
        #expect(links.album(forToken: second, in: catalog) == album)
        try ShareLinkMaker.revokeAll(cacheDirectory: dir, keyFile: nil)
        #expect(links.album(forToken: second, in: catalog) == nil, "revoke-all ends links in their grace period too")
        #expect(!FileManager.default.fileExists(atPath: ShareKeyring.previousPath(keyPath)))
        #expect(links.album(forToken: ShareLinks.token(for: album, key: try #require(links.currentKey())), in: catalog) == album)
        // A damaged previous-key file opens nothing extra.
        try Data("expires 99999999999\nnot hex\n".utf8).write(to: URL(fileURLWithPath: ShareKeyring.previousPath(keyPath)))
        #expect(try ShareKeyring.load(keyPath)?.previous == nil)
    }

    @Test func durationsParse() {
        #expect(ShareLinkMaker.parseDuration("7d") == 7 * 86_400)
        #expect(ShareLinkMaker.parseDuration("90m") == 5400)
        #expect(ShareLinkMaker.parseDuration("12h") == 43_200)
        #expect(ShareLinkMaker.parseDuration("0") == 0)
        for bad in ["", "d", "-1d", "1w", "400d", "1.5h", "１d"] { #expect(ShareLinkMaker.parseDuration(bad) == nil, "\(bad)") }
    }

    @Test func everyAnswerUnderAShareLinkIsPrivate() throws {
        let f = try ShareTests.Fixture()
        let link = "/s/" + (try f.token("Secret"))
        let photo = try #require(f.privateItems.first { $0.fileName == "Hidden Cat.jpg" })
        let version = try f.app.pipeline.version(url: photo.sourceURL)
        let expectations: [(String, String)] = [
            (link + "/", "private, no-store"),
            (link + "/photo/\(photo.id)", "private, no-store"),
            (link + "/album/\(f.album("Secret").id)/photos", "private, no-store"),
            (link + "/album/\(f.album("Secret").id)/download", "private, no-store"),
            (link + "/img/\(photo.id)/240x240?v=\(version)", "private, max-age=300"),
            (link + "/img/\(photo.id)/240x240", "private, no-store"),
            (link + "/original/\(photo.id)", "private, max-age=300"),
            (link + "/nothing", "private, no-store"),
        ]
        for (uri, cacheControl) in expectations {
            let r = f.h.send(uri)
            r.stream?.finished()
            #expect(r.header("Cache-Control") == cacheControl, "\(uri): \(r.status)")
            #expect(r.header("Referrer-Policy") == "no-referrer", "\(uri)")
            #expect(r.header("X-Robots-Tag") == "noindex, nofollow", "\(uri)")
            #expect(r.headers.filter { $0.name.lowercased() == "cache-control" }.count == 1, "\(uri)")
        }
        // Public answers keep their own policy.
        #expect(f.h.send("/").header("Referrer-Policy") == "same-origin")
    }

    @Test func onlyTheWriterRepairsADamagedIndex() throws {
        let dir = NSTemporaryDirectory() + "index-writer-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/index.sqlite"
        let lines = LibraryIndexTests.LogLines()
        let log: @Sendable (String) -> Void = { lines.add($0) }
        var damagedInode: UInt64 = 0
        do {
            let writer = try #require(LibraryIndex.open(path: path, log: log))
            #expect(writer.isWriter && writer.claimWriter())
            let reader = try #require(LibraryIndex.open(path: path, log: log))
            #expect(!reader.isWriter && !reader.claimWriter())
            // The file is damaged (here: replaced by bytes that are no database) while both are open.
            try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: path + ".garbage"))
            #expect(rename(path + ".garbage", path) == 0)
            for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
            damagedInode = LibraryIndex.inode(path)
            // Another process meeting it serves from scans and leaves the file alone.
            #expect(LibraryIndex.open(path: path, log: log) == nil)
            #expect(LibraryIndex.inode(path) == damagedInode)
            #expect(lines.all.contains { $0.contains("the indexing process repairs it") })
            #expect(!lines.all.contains { $0.contains("replacing it") })
        }
        // The writer (here: the next process to hold the lock) replaces it by rename: a new
        // file where the damaged one was, ours and usable.
        let next = try #require(LibraryIndex.open(path: path, log: log))
        #expect(next.isWriter)
        #expect(LibraryIndex.inode(path) != damagedInode)
        #expect(lines.all.contains { $0.contains("replacing it with a new index") })
        #expect(next.photoCount() == 0)
    }

    @Test func aStreamOfChangesThatNeverPausesStillGetsRescans() {
        let clock = ManualClock()
        let settler = ChangeSettler(settle: 0.25, maxDelay: 2, now: { clock.now })
        var waits: [Double] = []
        // An event arrives every 0.1 s, forever: every wait returns true after 0.1 s.
        let changed = settler.waitForChange(timeout: 5) { seconds in
            waits.append(seconds)
            clock.now += min(seconds, 0.1)
            return true
        }
        #expect(changed)
        #expect(clock.now <= 2.1 + 1e-9, "acted \(clock.now) s after the first notice")
        #expect(waits.dropFirst().allSatisfy { $0 <= 0.25 + 1e-9 })
        // A burst that stops settles 0.25 s after its last event.
        clock.now = 0
        var events = 5
        #expect(settler.waitForChange(timeout: 5) { seconds in
            guard events > 0 else { clock.now += seconds; return false }
            events -= 1
            clock.now += 0.05
            return true
        })
        #expect(abs(clock.now - 0.5) < 1e-9, "one event in the first wait, four more, then 0.25 s of quiet")
        #expect(!settler.waitForChange(timeout: 5) { _ in false })
    }
}

/// A clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
    var now = 0.0
}

final class ManualSeconds: @unchecked Sendable {
    var value: Int
    init(_ value: Int) { self.value = value }
}
