import CZlib
import Foundation
import Testing
import ImageCodec

/// Hostile inputs through the public façade (in process: the typed error) and through the
/// shipped binary (`gallery decode` for the codec, `gallery thumb` for the pipeline's
/// Renderer) run as a child under /usr/bin/time -v, because the test process's own RSS is
/// polluted by everything else the test run allocated. Every case must finish within 1 s of
/// CPU and 64 MB peak RSS with a typed error or a (possibly partial) image; the table printed
/// at the end goes into the issue note.
@Suite(.serialized) struct HostileFileTests {
    static let peakBudgetMB = 64.0
    static let cpuBudgetSeconds = 1.0

    @Test func hugeJPEGHeaderIsRefusedBeforeAllocating() throws {
        let bytes = try HostileFiles.jpegWithSize(width: 65_000, height: 65_000)
        #expect(HostileFiles.facadeResult(bytes).kind == .limitExceeded)
        #expect(throws: ImageCodecError.self) { try ImageCodec.probe(bytes) }
        try HostileRunner.check("jpeg 65000x65000 header", bytes, ext: "jpg", expect: .refused)
    }

    @Test func hugePNGHeaderIsRefusedBeforeAllocating() throws {
        let bytes = try HostileFiles.pngWithSize(width: 65_000, height: 65_000)
        #expect(HostileFiles.facadeResult(bytes).kind == .limitExceeded)
        try HostileRunner.check("png 65000x65000 IHDR", bytes, ext: "png", expect: .refused)
    }

    /// 2 GiB of zeros behind an IHDR that needs 4 MB: the decoder must stop inflating once it
    /// has its rows, not chew through the rest (nor hold it).
    @Test func inflateBombStopsAtTheRowsItNeeds() throws {
        let bytes = HostileFiles.pngInflateBomb(width: 2000, height: 2000, inflatedMiB: 2048)
        #expect(bytes.count < 3 << 20, "the bomb should be small on disk: \(bytes.count)")
        let result = HostileFiles.facadeResult(bytes)
        #expect(result.kind == nil || result.kind == .corrupt, "\(result.text)")
        try HostileRunner.check("png IDAT inflating to 2 GiB (2000x2000)", bytes, ext: "png", expect: .any)
    }

    /// The same bomb behind an IHDR right at the 100 MP limit: the thumbnail decodes at 1/8
    /// and must not keep the full-size rows.
    @Test func inflateBombAtThePixelLimitThumbnails() throws {
        let bytes = HostileFiles.pngInflateBomb(width: 10_000, height: 10_000, inflatedMiB: 2048)
        try HostileRunner.check("png IDAT 2 GiB behind 10000x10000", bytes, ext: "png", expect: .any, decode: false)
    }

    @Test func progressiveJPEGOverTheScanLimitIsRefused() throws {
        let bytes = HostileFiles.progressiveJPEG(side: 1024, components: 3, scans: 2660)
        #expect(HostileFiles.facadeResult(bytes).kind == .limitExceeded)
        try HostileRunner.check("progressive 2660 scans (> maxScans)", bytes, ext: "jpg", expect: .refused)
    }

    @Test func progressiveJPEGJustUnderTheScanLimitDecodes() throws {
        let scans = DecodeLimits.default.maxScans - 10
        let bytes = HostileFiles.progressiveJPEG(side: 1024, components: 3, scans: scans)
        let result = HostileFiles.facadeResult(bytes)
        #expect(result.kind == nil, "\(result.text)")
        try HostileRunner.check("progressive \(scans) tiny scans", bytes, ext: "jpg", expect: .decodes)
    }

    @Test(arguments: HostileFiles.sampleNames)
    func truncatedFilesFailOrDecodePartially(_ name: String) throws {
        let original = try HostileFiles.sample(name)
        for percent in [10, 50, 90] {
            let cut = Array(original.prefix(original.count * percent / 100))
            let result = HostileFiles.facadeResult(cut)
            if let kind = result.kind {
                #expect([.truncated, .corrupt, .notAnImage].contains(kind), "\(name) cut at \(percent) %: \(result.text)")
            }
            try HostileRunner.check("\(name) cut at \(percent) %", cut, ext: HostileFiles.ext(name), expect: .any)
        }
    }

    @Test(arguments: HostileFiles.sampleNames)
    func flippedBytesNeverCrash(_ name: String) throws {
        let original = try HostileFiles.sample(name)
        var rng = SplitMix64(seed: 0x5eed_0000 &+ UInt64(name.utf8.count))
        for round in 0..<3 {
            var bytes = original
            for _ in 0..<(1 + round * 4) {
                let i = Int(rng.next() % UInt64(bytes.count))
                bytes[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            }
            _ = HostileFiles.facadeResult(bytes)
            try HostileRunner.check("\(name) \(1 + round * 4) bytes flipped (seeded)", bytes, ext: HostileFiles.ext(name), expect: .any)
        }
    }

    /// Prints every row measured so far (each row is also printed as it is measured).
    @Test func zzPrintTable() {
        HostileRunner.printTable()
    }
}

/// What a hostile case may end in.
enum HostileExpectation { case refused, decodes, any }

/// Builders for hostile files, from fixtures and from scratch.
enum HostileFiles {
    static let fixtures: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures")
    }()

    static let sampleNames = ["baseline.jpg", "progressive.jpg", "photo.png", "interlaced.png"]
    private static let samplePaths = [
        "baseline.jpg": "jpeg/generated/odd_1001x667_420.jpg",
        "progressive.jpg": "jpeg/generated/odd_1001x667_422_prog.jpg",
        "interlaced.png": "png/pngsuite/basi6a16.png",
    ]

    static func ext(_ name: String) -> String { (name as NSString).pathExtension }

    static func sample(_ name: String) throws -> [UInt8] {
        if name == "photo.png" {
            // 640x480 RGB gradients with edges, from our encoder: many rows to cut through.
            var pixels = [UInt8](repeating: 0, count: 640 * 480 * 3)
            for y in 0..<480 {
                for x in 0..<640 {
                    let i = (y * 640 + x) * 3
                    pixels[i] = UInt8(x * 255 / 639)
                    pixels[i + 1] = UInt8(y * 255 / 479)
                    pixels[i + 2] = ((x / 40) + (y / 40)) % 2 == 0 ? 200 : UInt8((x ^ y) & 0xFF)
                }
            }
            return try PNGEncoder.encode(try Bitmap(width: 640, height: 480, layout: .rgb, pixels: pixels))
        }
        return [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(samplePaths[name]!)))
    }

    /// The façade's answer: nil kind for a decoded image.
    static func facadeResult(_ bytes: [UInt8]) -> (kind: ImageCodecError.Kind?, text: String) {
        do {
            let image = try ImageCodec.decode(bytes)
            return (nil, "decoded \(image.bitmap.width)x\(image.bitmap.height)")
        } catch let error as ImageCodecError {
            return (error.kind, error.description)
        } catch {
            return (.corrupt, "untyped error \(error)")
        }
    }

    /// A real baseline JPEG whose SOF says `width` × `height`.
    static func jpegWithSize(width: Int, height: Int) throws -> [UInt8] {
        var bytes = try sample("baseline.jpg")
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { i += 1; continue }
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xC0 || marker == 0xC2 {
                bytes[i + 5] = UInt8(height >> 8); bytes[i + 6] = UInt8(height & 0xFF)
                bytes[i + 7] = UInt8(width >> 8); bytes[i + 8] = UInt8(width & 0xFF)
                return bytes
            }
            i += 2 + length
        }
        throw ImageCodecError(.corrupt, "no SOF in the sample")
    }

    /// A PNG made of the given chunks after the signature.
    static func png(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for (type, data) in chunks {
            out += be32(UInt32(data.count))
            let body = Array(type.utf8) + data
            out += body
            out += be32(body.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) })
        }
        return out
    }

    static func ihdr(width: Int, height: Int, bitDepth: UInt8 = 8, colorType: UInt8 = 0) -> (String, [UInt8]) {
        ("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [bitDepth, colorType, 0, 0, 0])
    }

    /// A gray PNG with a correct (tiny) IDAT but an IHDR claiming `width` × `height`.
    static func pngWithSize(width: Int, height: Int) throws -> [UInt8] {
        png([ihdr(width: width, height: height), ("IDAT", deflate([UInt8](repeating: 0, count: 4096))), ("IEND", [])])
    }

    /// A gray PNG whose zlib stream inflates to `inflatedMiB` MiB of zeros (every row filter
    /// "none", every pixel black). The stream is one 1 MiB full-flush segment repeated: after
    /// a full flush deflate starts afresh, so the segment is the same every time and the bomb
    /// costs milliseconds to build, about 1 KB per MiB.
    static func pngInflateBomb(width: Int, height: Int, inflatedMiB: Int) -> [UInt8] {
        var stream = z_stream()
        precondition(czlib_deflateInit(&stream, 9) == Z_OK)
        defer { deflateEnd(&stream) }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        func segment(_ flush: Int32) -> [UInt8] {
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            zeros.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                repeat {
                    buffer.withUnsafeMutableBufferPointer { b in
                        stream.next_out = b.baseAddress
                        stream.avail_out = uInt(b.count)
                        _ = CZlib.deflate(&stream, flush)
                        out += b[0..<(b.count - Int(stream.avail_out))]
                    }
                } while stream.avail_out == 0 || stream.avail_in > 0
            }
            return out
        }
        let first = segment(Z_FULL_FLUSH)
        let repeated = segment(Z_FULL_FLUSH)
        var data = first
        data.reserveCapacity(first.count + repeated.count * inflatedMiB + 8)
        for _ in 1..<inflatedMiB { data += repeated }
        // A final empty fixed-Huffman block, then Adler-32 of n zeros: a = 1, b = n mod 65521.
        data += [0x03, 0x00]
        let b = UInt32((UInt64(inflatedMiB) << 20) % 65521)
        data += be32(b << 16 | 1)
        var chunks = [ihdr(width: width, height: height)]
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + (1 << 20))
            chunks.append(("IDAT", Array(data[offset..<end])))
            offset = end
        }
        chunks.append(("IEND", []))
        return png(chunks)
    }

    static func deflate(_ input: [UInt8]) -> [UInt8] {
        var size = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        _ = out.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { i in compress2(o.baseAddress, &size, i.baseAddress, uLong(i.count), 9) }
        }
        return Array(out.prefix(Int(size)))
    }

    /// A `side` × `side` progressive JPEG (`side` 1024, all components 1×1 sampled) whose every coefficient is zero, spelled with the longest valid scan script: DC
    /// with successive approximation from Al 13 down to 0 (14 interleaved scans), then each
    /// component's each AC coefficient alone, again from Al 13 down to 0. Only the first
    /// `scans` scans are written. Each AC scan is one EOBRUN symbol covering all blocks, so
    /// thousands of scans fit in a few hundred KB.
    static func progressiveJPEG(side: Int, components: Int, scans: Int) -> [UInt8] {
        precondition(side == 1024, "one EOBRUN symbol covers exactly 2^14 blocks")
        var out: [UInt8] = [0xFF, 0xD8]
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        out += [0xFF, 0xC2] + be16(8 + 3 * components) + [8] + be16(side) + be16(side) + [UInt8(components)]
        for c in 0..<components { out += [UInt8(c + 1), 0x11, 0] }
        // DC table 0: one 1-bit code for category 0. AC table 0: one 1-bit code for EOBRUN 2^14.
        out += [0xFF, 0xC4] + be16(2 + 17 + 1) + [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00]
        out += [0xFF, 0xC4] + be16(2 + 17 + 1) + [0x10, 1] + [UInt8](repeating: 0, count: 15) + [0xE0]
        let blocks = (side / 8) * (side / 8)
        var script: [(comps: [Int], ss: Int, se: Int, ah: Int, al: Int)] = []
        for al in stride(from: 13, through: 0, by: -1) {
            script.append((Array(0..<components), 0, 0, al == 13 ? 0 : al + 1, al))
        }
        for c in 0..<components {
            for k in 1...63 {
                for al in stride(from: 13, through: 0, by: -1) { script.append(([c], k, k, al == 13 ? 0 : al + 1, al)) }
            }
        }
        for scan in script.prefix(scans) {
            out += [0xFF, 0xDA] + be16(6 + 2 * scan.comps.count) + [UInt8(scan.comps.count)]
            for c in scan.comps { out += [UInt8(c + 1), 0x00] }
            out += [UInt8(scan.ss), UInt8(scan.se), UInt8(scan.ah << 4 | scan.al)]
            if scan.ss == 0 {
                // First DC scan: one "0" code per block; refinement: one 0 bit per block.
                out += [UInt8](repeating: 0, count: blocks * scan.comps.count / 8)
            } else {
                // "0" (EOBRUN 2^14 class) + 14 zero extra bits + one padding 1 bit.
                precondition(blocks == 1 << 14)
                out += [0x00, 0x01]
            }
        }
        out += [0xFF, 0xD9]
        return out
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}


/// Runs the `gallery` binary on one hostile file under /usr/bin/time -v and keeps a table row.
enum HostileRunner {
    struct Row: Sendable { var name, via, result: String; var ms, cpuMS, peakMB: Double }
    private static let rows = HostileRows()

    /// The `gallery` binary that `swift test` built beside the test bundle.
    static let binary: String? = {
        var candidates: [String] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent().appendingPathComponent("gallery").path) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gallery").path)
        let repo = HostileFiles.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        candidates += ["release", "debug"].map { repo.appendingPathComponent(".build/\($0)/gallery").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Debug builds run the codecs 15-200× slower: their bound is loose, release's is the real one.
    static var cpuBound: Double {
        (binary ?? "").contains("/debug/") ? 60 : HostileFileTests.cpuBudgetSeconds
    }

    /// `gallery decode IN OUT.pam` (the façade at full scale) and `gallery thumb IN OUT.jpg
    /// --size 480` (the Renderer); asserts time, memory and a typed answer for each.
    static func check(_ name: String, _ bytes: [UInt8], ext: String, expect: HostileExpectation, decode: Bool = true) throws {
        let binary = try #require(binary, "gallery binary not built next to the tests")
        let dir = NSTemporaryDirectory() + "hostile-\(getpid())-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in." + ext
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        var runs: [(String, [String])] = [("thumb", ["thumb", input, dir + "/out.jpg", "--size", "480"])]
        if decode { runs.insert(("decode", ["decode", input, dir + "/out.pam"]), at: 0) }
        for (via, args) in runs {
            let m = try measure(binary, args)
            let result: String
            if m.status == 0 {
                result = "image"
            } else {
                // "gallery decode: IN: limit_exceeded: …" → the kind after the path.
                let tail = m.stderr.components(separatedBy: input + ": ").last ?? m.stderr
                result = "error " + (tail.split(separator: ":").first.map(String.init) ?? "?")
            }
            let row = Row(name: name, via: via, result: result, ms: m.wallMS, cpuMS: m.cpuMS, peakMB: m.peakMB)
            rows.append(row)
            print("hostile: " + format(row))
            #expect(m.status == 0 || m.status == 1 || m.status == 65, "\(name) via \(via): exit \(m.status) (crash?) \(m.stderr)")
            #expect(m.cpuMS / 1000 < cpuBound, "\(name) via \(via): \(m.cpuMS) ms CPU")
            #expect(m.wallMS / 1000 < cpuBound * 10, "\(name) via \(via): \(m.wallMS) ms wall")
            #expect(m.peakMB < HostileFileTests.peakBudgetMB, "\(name) via \(via): peak \(m.peakMB) MB")
            switch expect {
            case .refused: #expect(m.status != 0, "\(name) via \(via) should be refused")
            case .decodes: #expect(m.status == 0, "\(name) via \(via) should decode: \(m.stderr)")
            case .any: break
            }
        }
    }

    struct Measurement { var status: Int32; var wallMS, cpuMS, peakMB: Double; var stderr: String }

    static func measure(_ binary: String, _ args: [String]) throws -> Measurement {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-v", binary] + args
        let errPipe = Pipe()
        process.standardError = errPipe
        process.standardOutput = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        let err = String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        func field(_ label: String) -> Double {
            for line in err.split(separator: "\n") where line.contains(label) {
                if let v = line.split(separator: ":").last.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) { return v }
            }
            return .nan
        }
        // time -v reports the child's status as "Exit status: N"; its own status mirrors it,
        // or is 128+signal ("Command terminated by signal").
        let status: Int32 = err.contains("Command terminated by signal") ? 128 : Int32(field("Exit status"))
        let cpu = (field("User time (seconds)") + field("System time (seconds)")) * 1000
        let ownErr = err.components(separatedBy: "\tCommand being timed").first ?? err
        return Measurement(status: status, wallMS: wall, cpuMS: cpu, peakMB: field("Maximum resident set size (kbytes)") / 1024,
                           stderr: ownErr.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func format(_ r: Row) -> String {
        "\(r.name) | \(r.via) | \(r.result) | \(String(format: "%.0f", r.ms)) | \(String(format: "%.0f", r.cpuMS)) | \(String(format: "%.1f", r.peakMB))"
    }

    static func printTable() {
        let all = rows.all()
        var lines = ["hostile file | via | result | wall ms | cpu ms | peak MB", "--- | --- | --- | ---: | ---: | ---:"]
        for r in all { lines.append(format(r)) }
        print(lines.joined(separator: "\n"))
    }
}

/// Rows from tests that may run on several threads.
final class HostileRows: @unchecked Sendable {
    private let lock = NSLock()
    private var rows: [HostileRunner.Row] = []
    func append(_ row: HostileRunner.Row) { lock.lock(); rows.append(row); lock.unlock() }
    func all() -> [HostileRunner.Row] { lock.lock(); defer { lock.unlock() }; return rows }
}
