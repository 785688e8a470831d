import FastCGI
import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// The ZIP layout and streamer on their own: archives Python's zipfile (and Info-ZIP's unzip
/// when installed) read back byte for byte, ranges that put together give the whole, and the
/// ZIP64 records from a list of fake sizes.
@Suite struct ZipDownloadTests {
    static let python = "/usr/bin/python3"
    static var hasUnzip: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/unzip") }

    /// A temp folder with files of the given sizes (pseudo-random bytes); removed by `remove()`.
    struct Files {
        let dir: String
        var entries: [ZipEntry] = []

        init(sizes: [Int], names: [String]? = nil) throws {
            dir = NSTemporaryDirectory() + "zip-test-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            var seed: UInt32 = 12345
            for (i, size) in sizes.enumerated() {
                var bytes = [UInt8](repeating: 0, count: size)
                for j in 0..<size {
                    seed = seed &* 1_103_515_245 &+ 12345
                    bytes[j] = UInt8(truncatingIfNeeded: seed >> 16)
                }
                let path = dir + "/f\(i)"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let name = names?[i] ?? "Album/photo \(i).jpg"
                entries.append(ZipEntry(name: Array(name.utf8), size: size, modified: 1_700_000_000 + i * 61, path: path))
            }
        }

        func remove() { try? FileManager.default.removeItem(atPath: dir) }
    }

    static func stream(_ layout: ZipLayout, _ range: Range<Int>, checksums: ZipChecksums = ZipChecksums()) throws -> [UInt8] {
        var out: [UInt8] = []
        try ZipStreamer(layout: layout, checksums: checksums).write(range) { out.append(contentsOf: $0); return true }
        return out
    }

    /// Runs Python: for every member, "name<TAB>size<TAB>sha256", after `testzip()` checked the CRCs.
    static func pythonListing(_ zipPath: String) throws -> [String] {
        let script = """
            import hashlib, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            bad = z.testzip()
            if bad: sys.exit('bad CRC: ' + bad)
            for i in z.infolist():
                print(i.filename + '\\t' + str(i.file_size) + '\\t' + hashlib.sha256(z.read(i)).hexdigest())
            """
        return try Subprocess.run(python, ["-c", script, zipPath]).split(separator: "\n").map(String.init)
    }

    @Test func archiveExtractsByteIdentical() throws {
        let files = try Files(sizes: [0, 1, 1000, 300_000, 70_000], names: ["Trips/empty.jpg", "Trips/one.jpg", "Trips/Été à Paris.jpg",
                                                                           "Trips/2024/big.jpg", "Trips/2024/mid.png"])
        defer { files.remove() }
        let layout = ZipLayout(entries: files.entries)
        let bytes = try Self.stream(layout, 0..<layout.totalLength)
        #expect(bytes.count == layout.totalLength)
        #expect(!layout.zip64End)
        let zipPath = files.dir + "/out.zip"
        try Data(bytes).write(to: URL(fileURLWithPath: zipPath))
        let expected = try files.entries.map { entry -> String in
            let data = try Data(contentsOf: URL(fileURLWithPath: entry.path))
            return "\(String(decoding: entry.name, as: UTF8.self))\t\(entry.size)\t\(SHA256.hex([UInt8](data)))"
        }
        #expect(try Self.pythonListing(zipPath) == expected)
        if Self.hasUnzip {
            let test = try Subprocess.run("/usr/bin/unzip", ["-t", zipPath])
            #expect(test.contains("No errors detected"), "\(test)")
        }
    }

    @Test func rangesPutTogetherAreTheWhole() throws {
        let files = try Files(sizes: [5000, 0, 123_456, 17])
        defer { files.remove() }
        let layout = ZipLayout(entries: files.entries)
        let whole = try Self.stream(layout, 0..<layout.totalLength)
        let n = layout.totalLength
        // Cuts inside headers, data, descriptors, the central directory and the end record;
        // each tail is made with fresh checksums, so CRCs of files before it are read again.
        var cuts = [1, 29, 30, 31, 5000, 5050, layout.offsets[2] + 40, layout.offsets[3] - 3, layout.centralStart - 1,
                    layout.centralStart, layout.centralStart + 50, n - 22, n - 1]
        cuts += stride(from: 7, to: n, by: n / 13)
        for cut in cuts {
            let head = try Self.stream(layout, 0..<cut, checksums: ZipChecksums())
            let tail = try Self.stream(layout, cut..<n, checksums: ZipChecksums())
            #expect(head + tail == whole, "cut at \(cut)")
            let middle = try Self.stream(layout, cut / 2..<(cut + n) / 2, checksums: ZipChecksums())
            #expect(middle == Array(whole[(cut / 2)..<((cut + n) / 2)]), "middle around \(cut)")
        }
    }

    @Test func changedFileStopsTheStream() throws {
        let files = try Files(sizes: [1000, 2000])
        defer { files.remove() }
        let layout = ZipLayout(entries: files.entries)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: files.entries[1].path))
        var sent = 0
        #expect(throws: ZipStreamer.Stop.self) {
            try ZipStreamer(layout: layout, checksums: ZipChecksums()).write(0..<layout.totalLength) { sent += $0.count; return true }
        }
        #expect(sent < layout.totalLength)
    }

    /// 70,000 entries (over the 65,535 of the classic end record) of one small file: Python
    /// reads the ZIP64 end records and every member.
    @Test func zip64ByEntryCount() throws {
        let files = try Files(sizes: [3])
        defer { files.remove() }
        let one = files.entries[0]
        let entries = (0..<70_000).map { ZipEntry(name: Array("many/\($0).jpg".utf8), size: 3, modified: one.modified, path: one.path) }
        let layout = ZipLayout(entries: entries)
        #expect(layout.zip64End)
        let zipPath = files.dir + "/many.zip"
        try Data(try Self.stream(layout, 0..<layout.totalLength)).write(to: URL(fileURLWithPath: zipPath))
        let listing = try Self.pythonListing(zipPath)
        #expect(listing.count == 70_000)
        #expect(listing.last?.hasPrefix("many/69999.jpg\t3\t") == true)
    }

    /// Sizes past 4 GiB from a fake list: the archive's records are written at their offsets
    /// into a sparse file (the data stays holes, never written), and Python reads the
    /// directory back: sizes and offsets through the ZIP64 extra fields and end records.
    @Test func zip64BySizeFromFakeSizes() throws {
        let sizes = [5 << 30, 100, 4_294_967_295, 4_294_967_294, 7]
        let entries = sizes.enumerated().map { ZipEntry(name: Array("big/\($0.offset).bin".utf8), size: $0.element, modified: 1_700_000_000, path: "/nonexistent") }
        let layout = ZipLayout(entries: entries)
        #expect(layout.zip64End)
        #expect(ZipLayout.isZip64(entries[0]) && ZipLayout.isZip64(entries[2]) && !ZipLayout.isZip64(entries[3]))
        // Entries after the first start past 4 GiB: their central records carry the offset.
        #expect(ZipLayout.centralExtraLength(entries[1], offset: layout.offsets[1]) == 12)
        #expect(ZipLayout.centralExtraLength(entries[0], offset: 0) == 20)
        let expectedTotal = sizes.enumerated().reduce(0) { sum, e in
            let zip64 = e.element >= 0xFFFF_FFFF
            let name = "big/\(e.offset).bin".utf8.count
            let central = 46 + name + ZipLayout.centralExtraLength(entries[e.offset], offset: layout.offsets[e.offset])
            return sum + 30 + name + (zip64 ? 20 : 0) + e.element + (zip64 ? 24 : 16) + central
        } + 56 + 20 + 22
        #expect(layout.totalLength == expectedTotal)

        let dir = NSTemporaryDirectory() + "zip64-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/sparse.zip"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        func put(_ bytes: [UInt8], at offset: Int) {
            _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        }
        for i in entries.indices {
            put(layout.localHeader(i), at: layout.offsets[i])
            put(layout.descriptor(i, crc: 0), at: layout.offsets[i] + ZipLayout.localHeaderLength(entries[i]) + entries[i].size)
        }
        var at = layout.centralStart
        for i in entries.indices {
            let record = layout.central(i, crc: 0)
            put(record, at: at)
            at += record.count
        }
        put(layout.end(), at: at)
        close(fd)
        var st = stat()
        #expect(stat(path, &st) == 0 && Int(st.st_size) == layout.totalLength)
        #expect(st.st_blocks * 512 < 1 << 20, "the data parts must stay holes")
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            for i in z.infolist():
                print(i.filename, i.file_size, i.compress_size, i.header_offset, i.flag_bits)
            """
        let lines = try Subprocess.run(Self.python, ["-c", script, path]).split(separator: "\n").map(String.init)
        let expected = entries.indices.map { "big/\($0).bin \(sizes[$0]) \(sizes[$0]) \(layout.offsets[$0]) 2056" }
        #expect(lines == expected)
    }

    /// Remote photos: in the ZIP once the disk cache holds them (byte-identical to what the
    /// origin sent), left out before, and never fetched by the download itself.
    @Test func remotePhotosComeFromTheDiskCache() throws {
        let origin = try FaultOrigin()
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.jpeg("flower_420_q75.jpg"))))
        origin.set("/seen.jpg", .image(jpeg))
        origin.set("/unseen.jpg", .image(jpeg))
        let base = NSTemporaryDirectory() + "gallery-zip-remote-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let root = base + "/photos"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let remote = ["/seen.jpg", "/unseen.jpg"].map { ["url": origin.url($0), "album": "Web"] }
        try JSONSerialization.data(withJSONObject: ["remote": remote]).write(to: URL(fileURLWithPath: root + "/gallery.json"))
        var pc = PipelineConfiguration(cacheDirectory: base + "/cache", libraryRoot: root)
        pc.log = { _ in }
        let repo = Fixtures.repoRoot.path
        let pipeline = ImagePipeline(configuration: pc)
        let app = try GalleryApp(configuration: GalleryConfiguration(
            libraryRoot: root, templatesDirectory: repo + "/templates", publicDirectory: repo + "/public"),
            pipeline: pipeline, watchLibrary: false, log: { _ in })
        let album = try #require(app.catalog.albums.values.first { $0.relativePath == "Web" })
        func zipNames() -> [String] {
            let entries = ZipContents.entries(albumID: album.id, subalbums: false, catalog: app.catalog, pipeline: pipeline)
            return entries.map { String(decoding: $0.name, as: UTF8.self) }
        }
        #expect(zipNames().isEmpty)
        _ = try pipeline.original(url: origin.url("/seen.jpg"))
        #expect(zipNames() == ["Web/seen.jpg"])
        let r = app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": "/album/\(album.id)/download"]))
        var body: [UInt8] = []
        r.stream?.produce { body.append(contentsOf: $0); return true }
        r.stream?.finished()
        #expect(body.count == r.contentLength)
        let zipPath = base + "/web.zip"
        try Data(body).write(to: URL(fileURLWithPath: zipPath))
        #expect(try Self.pythonListing(zipPath) == ["Web/seen.jpg\t\(jpeg.count)\t\(SHA256.hex(jpeg))"])
        #expect(origin.hits("/unseen.jpg") == 0)
    }

    @Test func crc32MatchesTheCheckValue() {
        // The standard check value of CRC-32/ISO-HDLC, and the same fed in two pieces.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        var crc = CRC32()
        Array("1234".utf8).withUnsafeBytes { crc.update($0) }
        Array("56789".utf8).withUnsafeBytes { crc.update($0) }
        #expect(crc.value == 0xCBF4_3926 && CRC32.checksum([]) == 0)
    }

    @Test func downloadSlotsStopAtTheLimit() {
        let slots = DownloadSlots(limit: 2)
        #expect(slots.acquire() && slots.acquire() && !slots.acquire())
        slots.release()
        #expect(slots.acquire())
    }

    @Test func dosTimesAreUTCAndClamped() {
        // 2023-11-14 22:13:20 UTC.
        let (time, date) = ZipLayout.dosTime(1_700_000_000)
        #expect(date == (43 << 9 | 11 << 5 | 14))
        #expect(time == (22 << 11 | 13 << 5 | 10))
        #expect(ZipLayout.dosTime(0).date == (0 << 9 | 1 << 5 | 1))
    }

    @Test func rangeHeaders() {
        #expect(ByteRange.parse("bytes=0-99", length: 1000) == .part(0..<100))
        #expect(ByteRange.parse("bytes=500-", length: 1000) == .part(500..<1000))
        #expect(ByteRange.parse("bytes=-100", length: 1000) == .part(900..<1000))
        #expect(ByteRange.parse("bytes=900-5000", length: 1000) == .part(900..<1000))
        #expect(ByteRange.parse("bytes=1000-", length: 1000) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-0", length: 1000) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-1,5-6", length: 1000) == .whole)
        #expect(ByteRange.parse("bytes=5-1", length: 1000) == .whole)
        #expect(ByteRange.parse("items=0-1", length: 1000) == .whole)
        #expect(ByteRange.parse("bytes=x-1", length: 1000) == .whole)
    }

    @Test func namesAreSafeAndUnique() {
        #expect(ZipContents.component("..") == "_")
        #expect(ZipContents.component("a/b\\c:d") == "a_b_c_d")
        #expect(ZipContents.component("tab\there") == "tab_here")
        var used = Set<String>()
        #expect(ZipContents.unique("IMG.jpg", in: &used) == "IMG.jpg")
        #expect(ZipContents.unique("img.JPG", in: &used) == "img (2).JPG")
        #expect(ZipContents.unique("IMG.jpg", in: &used) == "IMG (3).jpg")
    }
}
