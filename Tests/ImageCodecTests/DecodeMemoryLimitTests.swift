import Foundation
import Testing
@testable import ImageCodec

/// `DecodeLimits.maxMemoryBytes`: the decoders estimate their buffers from the headers at the
/// requested scale and refuse, before allocating, a decode that would not fit.
@Suite(.serialized) struct DecodeMemoryLimitTests {
    /// A few hundred bytes claiming 10000×10000 progressive 4:4:4: 938 MB of buffers at full
    /// size with three components, 1.15 GB with four. Before the limit, `gallery decode` of
    /// these peaked at 940 MB and 1148 MB RSS.
    @Test(arguments: [3, 4])
    func hostileProgressiveHeaderIsRefusedBeforeAllocating(components: Int) throws {
        let bytes = MemoryLimitFiles.progressiveHeader(width: 10_000, height: 10_000, components: components)
        #expect(bytes.count < 300)
        let error = try #require(Self.refusal { try ImageCodec.decode(bytes) })
        #expect(error.message.contains("progressive JPEG 10000x10000 at 8/8 needs"), "\(error)")
        #expect(error.message.contains("coefficients \(components * 1250 * 1250 * 136)"), "\(error)")
        #expect(error.message.contains("output 300000000"), "\(error)")
        #expect(error.message.contains("over the \(DecodeLimits.default.maxMemoryBytes) byte memory limit"), "\(error)")

        // The shipped binary, in a child process so that its peak RSS is the decode's alone.
        let binary = try #require(HostileRunner.binary, "gallery binary not built next to the tests")
        let dir = NSTemporaryDirectory() + "memlimit-\(getpid())-\(components)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/in.jpg"))
        // PNG output decodes the whole bitmap; PAM streams rows (`ImageCodec.decodeRows`), whose
        // estimate counts a 128 KB group of rows instead of the 300 MB bitmap: 637.5 MB of
        // coefficients with three components fits the default budget there, 850 MB with four does not.
        let outputs = components == 4 ? ["out.png", "out.pam"] : ["out.png"]
        for output in outputs {
            let m = try HostileRunner.measure(binary, ["decode", dir + "/in.jpg", dir + "/" + output])
            print("memlimit: 10000x10000 4:4:4 progressive, \(components) components, \(output): exit \(m.status), peak \(m.peakMB) MB")
            #expect(m.status == 1, "\(m.stderr)")
            #expect(m.stderr.contains("limitExceeded"), "\(m.stderr)")
            #expect(m.peakMB < HostileFileTests.peakBudgetMB, "peak \(m.peakMB) MB")
        }
    }

    /// Streamed, the same hostile header is refused by its coefficients alone once they pass
    /// the budget: four components (850 MB), or three under a budget below their 637.5 MB.
    @Test func hostileProgressiveHeaderStreamedIsRefusedByItsCoefficients() throws {
        final class Refuse: DecodedRowSink {
            func begin(width: Int, height: Int, layout: Bitmap.Layout) throws {
                throw ImageCodecError(.invalidArgument, "begin reached")
            }
            func write(_ rows: UnsafeBufferPointer<UInt8>, first: Int, count: Int) throws {}
        }
        let four = MemoryLimitFiles.progressiveHeader(width: 10_000, height: 10_000, components: 4)
        let error = try #require(Self.refusal { try ImageCodec.decodeRows(four, into: Refuse()) })
        #expect(error.message.contains("coefficients \(4 * 1250 * 1250 * 136)") && error.message.contains("output rows"), "\(error)")
        let three = MemoryLimitFiles.progressiveHeader(width: 10_000, height: 10_000, components: 3)
        let budget = DecodeLimits(maxMemoryBytes: 3 * 1250 * 1250 * 136)
        #expect(Self.refusal { try ImageCodec.decodeRows(three, limits: budget, into: Refuse()) } != nil)
    }

    /// The same hostile header at 1/8 needs 10 bytes per block instead of 136: under the
    /// default budget it decodes (grey, the scan data is missing), so the refusal above
    /// depended on the scale, not on the file.
    @Test func hostileHeaderDecodesAtAnEighth() throws {
        let bytes = MemoryLimitFiles.progressiveHeader(width: 10_000, height: 10_000, components: 3)
        let needed = try #require(Self.needed { try ImageCodec.decode(bytes, scale: .eighth, limits: DecodeLimits(maxMemoryBytes: 0)) })
        // Per component: 1250 × 1250 blocks of DC + mask, a ring of 3 one-row bands, one
        // upsampled row (+32), a quantisation table; then the bitmap and the scratch block.
        #expect(needed == 3 * (1250 * 1250 * 10 + 3 * 1250 + 1250 + 32 + 128) + 1250 * 1250 * 3 + 128)
        let image = try ImageCodec.decode(bytes, scale: .eighth)
        #expect(image.bitmap.width == 1250 && image.bitmap.height == 1250)
        #expect(image.warnings.contains { $0.contains("premature end") })
    }

    /// For real files the limit is exact (the estimate itself fits, one byte less does not)
    /// and follows the scale: a budget one byte short of the full-size decode still lets the
    /// 1/8 decode through, with the same pixels as without a budget.
    @Test(arguments: ["generated/odd_1001x667_420.jpg", "generated/odd_1001x667_422_prog.jpg"])
    func jpegBudgetFollowsTheScale(_ file: String) throws {
        let bytes = try JPEGFixtures.bytes(file)
        let full = try #require(Self.needed { try ImageCodec.decode(bytes, limits: DecodeLimits(maxMemoryBytes: 0)) })
        let eighth = try #require(Self.needed { try ImageCodec.decode(bytes, scale: .eighth, limits: DecodeLimits(maxMemoryBytes: 0)) })
        #expect(full >= 1001 * 667 * 3)
        #expect(eighth < full / 8)
        let short = DecodeLimits(maxMemoryBytes: full - 1)
        #expect(Self.refusal { try ImageCodec.decode(bytes, limits: short) } != nil)
        #expect(try ImageCodec.decode(bytes, limits: DecodeLimits(maxMemoryBytes: full)).bitmap.width == 1001)
        let reduced = try ImageCodec.decode(bytes, scale: .eighth, limits: short)
        #expect(reduced.bitmap == (try ImageCodec.decode(bytes, scale: .eighth)).bitmap)
    }

    /// The progressive estimate counts the coefficient store exactly as it is allocated.
    @Test func coefficientEstimateMatchesTheStore() throws {
        let frame = try JPEGMemoryTests.frame()
        for scale in [1, 2, 4, 8] {
            let plan = try DecodePlan(frame: frame, scale: scale, colorSpace: .ycbcr)
            #expect(CoefficientStore.byteCount(for: plan) == (try CoefficientStore(plan: plan)).byteCount, "\(scale)/8")
        }
    }

    /// A reduced Adam7 decode keeps block sums for the whole output (4 bytes per sample), a
    /// sequential one a single row of them: with the budget of the sequential 1/2 decode, the
    /// interlaced file (same pixels) is refused at 1/2 but still decodes at 1/8, and neither
    /// decodes at full size.
    @Test func pngBudgetFollowsScaleAndInterlacing() throws {
        let bitmap = MemoryLimitFiles.gradient(width: 512, height: 512)
        let plain = try PNGEncoder.encode(bitmap)
        let interlaced = try MemoryLimitFiles.adam7PNG(bitmap)
        func needed(_ png: [UInt8], _ scale: DecodeScale) throws -> Int {
            try #require(Self.needed { try ImageCodec.decode(png, scale: scale, limits: DecodeLimits(maxMemoryBytes: 0)) })
        }
        let budget = try needed(plain, .half)
        #expect(try needed(interlaced, .half) - budget == 256 * 256 * 3 * 4 - 256 * 3 * 4)
        let limits = DecodeLimits(maxMemoryBytes: budget)

        #expect(try ImageCodec.decode(plain, scale: .half, limits: limits).bitmap == (try ImageCodec.decode(interlaced, scale: .half)).bitmap)
        #expect(Self.refusal { try ImageCodec.decode(interlaced, scale: .half, limits: limits) }?.message.contains("block sums") == true)
        #expect(Self.refusal { try ImageCodec.decode(plain, limits: limits) } != nil)
        #expect(Self.refusal { try ImageCodec.decode(interlaced, limits: limits) } != nil)
        let eighth = try ImageCodec.decode(interlaced, scale: .eighth, limits: limits)
        #expect(eighth.bitmap == (try ImageCodec.decode(plain, scale: .eighth)).bitmap)
        #expect(try ImageCodec.decode(interlaced).bitmap == bitmap)
    }

    /// `ImageCodec.memoryEstimate` is the figure decode checks: a limit of exactly the
    /// estimate decodes, one byte less is refused, at every scale, for sequential and
    /// progressive JPEGs and plain and interlaced PNGs.
    @Test(arguments: ["jpeg/generated/odd_1001x667_420.jpg", "jpeg/generated/odd_1001x667_422_prog.jpg",
                      "jpeg/generated/flower_cmyk_adobe_q85.jpg", "png/pngsuite/basi2c08.png", "png/pngsuite/basn6a16.png"])
    func memoryEstimateIsWhatDecodeChecks(_ file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: JPEGFixtures.root.deletingLastPathComponent().appendingPathComponent(file)))
        for scale in [DecodeScale.eighth, .quarter, .half, .full] {
            let estimate = try ImageCodec.memoryEstimate(bytes, scale: scale)
            #expect(Self.needed { try ImageCodec.decode(bytes, scale: scale, limits: DecodeLimits(maxMemoryBytes: 0)) } == estimate,
                    "\(file) at \(scale)")
            #expect(Self.refusal { try ImageCodec.decode(bytes, scale: scale, limits: DecodeLimits(maxMemoryBytes: estimate - 1)) } != nil)
            #expect(try ImageCodec.decode(bytes, scale: scale, limits: DecodeLimits(maxMemoryBytes: estimate)).bitmap.pixels.count > 0)
        }
    }

    /// Without decoding, the estimate throws what decode throws for the headers: the hostile
    /// header's refusal word for word, not-an-image, a damaged header.
    @Test func memoryEstimateThrowsWhatDecodeThrows() throws {
        let hostile = MemoryLimitFiles.progressiveHeader(width: 10_000, height: 10_000, components: 3)
        let fromEstimate = try #require(Self.refusal { try ImageCodec.memoryEstimate(hostile) })
        let fromDecode = try #require(Self.refusal { try ImageCodec.decode(hostile) })
        #expect(fromEstimate.message == fromDecode.message)
        #expect(try ImageCodec.memoryEstimate(hostile, scale: .eighth) < DecodeLimits.default.maxMemoryBytes)
        let cases: [[UInt8]] = [Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 32), Array(hostile.prefix(40))]
        for bytes in cases {
            var estimateKind: ImageCodecError.Kind?, decodeKind: ImageCodecError.Kind?
            do { _ = try ImageCodec.memoryEstimate(bytes) } catch let e as ImageCodecError { estimateKind = e.kind }
            do { _ = try ImageCodec.decode(bytes) } catch let e as ImageCodecError { decodeKind = e.kind }
            #expect(estimateKind != nil && estimateKind == decodeKind)
        }
    }

    /// A size that overflows `Int` is never "within" a limit, not even `.max`.
    @Test func overflowingEstimateIsRefused() {
        var estimate = DecodeMemoryEstimate("test image")
        estimate.add("output", 1 << 40, 1 << 30)
        #expect(estimate.total == nil)
        do {
            try DecodeLimits(maxMemoryBytes: .max).check(estimate)
            Issue.record("an overflowing estimate passed")
        } catch let error as ImageCodecError {
            #expect(error.kind == .limitExceeded)
            #expect(error.message.contains("more bytes than an Int holds"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// The `.limitExceeded` error `body` throws, or nil (recorded as an issue) when it throws
    /// nothing or something else.
    static func refusal(_ body: () throws -> Any) -> ImageCodecError? {
        do {
            _ = try body()
            Issue.record("expected limitExceeded, the decode succeeded")
        } catch let error as ImageCodecError where error.kind == .limitExceeded {
            return error
        } catch {
            Issue.record("expected limitExceeded, got \(error)")
        }
        return nil
    }

    /// The estimate in a refusal's message ("... needs N bytes (...)").
    static func needed(_ body: () throws -> Any) -> Int? {
        guard let message = refusal(body)?.message, let range = message.range(of: "needs ") else { return nil }
        return Int(message[range.upperBound...].prefix { $0.isNumber })
    }
}

/// Inputs built for the memory-limit tests.
enum MemoryLimitFiles {
    /// A progressive JPEG whose SOF claims `width` × `height` with every component 1×1
    /// sampled, followed by a first DC scan of 64 zero bytes: a tiny body behind a huge header.
    static func progressiveHeader(width: Int, height: Int, components: Int) -> [UInt8] {
        let be16 = HostileFiles.be16
        var out: [UInt8] = [0xFF, 0xD8]
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        out += [0xFF, 0xC2] + be16(8 + 3 * components) + [8] + be16(height) + be16(width) + [UInt8(components)]
        for c in 0..<components { out += [UInt8(c + 1), 0x11, 0] }
        out += [0xFF, 0xC4] + be16(2 + 17 + 1) + [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00]
        out += [0xFF, 0xDA] + be16(6 + 2 * components) + [UInt8(components)]
        for c in 0..<components { out += [UInt8(c + 1), 0x00] }
        out += [0, 0, 0] + [UInt8](repeating: 0, count: 64) + [0xFF, 0xD9]
        return out
    }

    /// RGB gradients with a checkerboard, so every Adam7 pass carries different pixels.
    static func gradient(width: Int, height: Int) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(x * 255 / (width - 1))
                pixels[i + 1] = UInt8(y * 255 / (height - 1))
                pixels[i + 2] = (x / 16 + y / 16) % 2 == 0 ? 40 : UInt8((x ^ y) & 0xFF)
            }
        }
        return try! Bitmap(width: width, height: height, layout: .rgb, pixels: pixels)
    }

    /// `bitmap` (RGB) as an Adam7-interlaced PNG, every row unfiltered (our encoder writes
    /// sequential files only).
    static func adam7PNG(_ bitmap: Bitmap) throws -> [UInt8] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw: [UInt8] = []
        for (x0, y0, dx, dy) in passes where x0 < bitmap.width && y0 < bitmap.height {
            for y in stride(from: y0, to: bitmap.height, by: dy) {
                raw.append(0)
                for x in stride(from: x0, to: bitmap.width, by: dx) {
                    let i = (y * bitmap.width + x) * 3
                    raw += bitmap.pixels[i..<(i + 3)]
                }
            }
        }
        let ihdr = HostileFiles.be32(UInt32(bitmap.width)) + HostileFiles.be32(UInt32(bitmap.height)) + [8, 2, 0, 0, 1]
        return HostileFiles.png([("IHDR", ihdr), ("IDAT", HostileFiles.deflate(raw)), ("IEND", [])])
    }
}
