import Foundation
import Testing
@testable import ImageCodec

/// The band-by-band decode of a single coded picture (`HEVCDecoder.decodeRows`, used by HEIF
/// for non-grid images) against the whole-picture decode: every conformance stream (WPP,
/// slices, dependent slices, tiles, 4:0:0, 4:2:2, 10-bit, odd sizes, lossless) and every HEIF
/// fixture at 1/1, 1/2, 1/4 and 1/8 in every orientation the fixtures carry must give the same
/// samples, and truncated streams the same kind of error.
@Suite struct HEVCRowStreamTests {
    /// `units` as the length-prefixed data of an HEIF item (4-byte lengths).
    static func lengthPrefixed(_ units: [ArraySlice<UInt8>]) -> [UInt8] {
        var out: [UInt8] = []
        for u in units {
            let n = u.count
            out += [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            out += u
        }
        return out
    }

    /// The bands `decodeRows` hands out, put together and cropped like `HEVCDecoder.decode`'s
    /// picture; checks that their final rows tile the picture, top to bottom.
    static func streamed(_ data: [UInt8]) throws -> HEVCPicture {
        var bands: [HEVCRowBand] = []
        try HEVCDecoder.decodeRows(parameterSets: [], data: data[...], lengthSize: 4, limits: .default) { bands.append($0) }
        let first = try #require(bands.first)
        var next = 0
        for band in bands {
            #expect(band.rows.lowerBound == next)
            #expect(band.rows.lowerBound >= band.top && band.rows.upperBound <= band.top + band.picture.planes[0].height)
            next = band.rows.upperBound
        }
        let format = first.picture.chromaFormat
        let (sx, sy) = format.subsampling
        let width = first.picture.width, height = next
        var planes: [HEVCPlane] = []
        for index in 0..<format.planeCount {
            let dx = index == 0 ? 1 : sx, dy = index == 0 ? 1 : sy
            let w = width / dx
            var samples = [UInt16](repeating: 0, count: w * (height / dy))
            for band in bands {
                let plane = band.picture.planes[index]
                for y in (band.rows.lowerBound / dy)..<(band.rows.upperBound / dy) {
                    let source = (y - band.top / dy) * w
                    samples.replaceSubrange((y * w)..<(y * w + w), with: plane.samples[source..<(source + w)])
                }
            }
            let left = first.cropLeft / dx, top = first.cropTop / dy
            let cw = first.croppedWidth / dx, ch = first.croppedHeight / dy
            var cropped: [UInt16] = []
            for y in 0..<ch { cropped += samples[((top + y) * w + left)..<((top + y) * w + left + cw)] }
            planes.append(HEVCPlane(width: cw, height: ch, samples: cropped))
        }
        return HEVCPicture(width: first.croppedWidth, height: first.croppedHeight, chromaFormat: format,
                           bitDepthLuma: first.picture.bitDepthLuma, bitDepthChroma: first.picture.bitDepthChroma,
                           planes: planes, videoSignal: first.picture.videoSignal)
    }

    /// The kind of error `body` throws (nil when it returns), with its message for the log.
    static func kind(_ body: () throws -> Void) -> ImageCodecError.Kind? {
        do { try body() } catch let e as ImageCodecError {
            print("HEVCRowStreamTests: \(e)")
            return e.kind
        } catch { return nil }
        return nil
    }

    @Test(arguments: HEVCConformanceTests.entries.map(\.file))
    func conformanceStreamsMatchWholeDecode(_ file: String) throws {
        let stream = try HEVCConformanceTests.bytes(file)
        let units = HEVCNALSplitter.annexB(stream)
        let data = Self.lengthPrefixed(units)
        var whole: HEVCPicture?
        let wholeKind = Self.kind { whole = try HEVCDecoder.decode(parameterSets: [], data: data[...], lengthSize: 4) }
        var rows: HEVCPicture?
        let rowsKind = Self.kind { rows = try Self.streamed(data) }
        #expect(wholeKind == rowsKind, "\(file): whole \(String(describing: wholeKind)), streamed \(String(describing: rowsKind))")
        if let whole, let rows {
            #expect(whole == rows, "\(file): streamed picture differs from the whole decode")
        }
        // Cut short at a few places: the same kind of error (or the same picture) both ways.
        for fraction in [2, 3, 5] {
            let cut = Array(data.prefix(data.count * (fraction - 1) / fraction))
            var w: HEVCPicture?, r: HEVCPicture?
            let wk = Self.kind { w = try HEVCDecoder.decode(parameterSets: [], data: cut[...], lengthSize: 4) }
            let rk = Self.kind { r = try Self.streamed(cut) }
            #expect(wk == rk, "\(file) cut to \(cut.count) bytes: whole \(String(describing: wk)), streamed \(String(describing: rk))")
            if let w, let r { #expect(w == r) }
        }
    }

    static let heifFiles: [String] = {
        let fm = FileManager.default
        var out: [String] = []
        for dir in ["", "generated/"] {
            let names = (try? fm.contentsOfDirectory(atPath: HEIFFixtures.root.appendingPathComponent(dir).path)) ?? []
            out += names.filter { $0.hasSuffix(".heic") || $0.hasSuffix(".heif") }.sorted().map { dir + $0 }
        }
        return out
    }()

    /// The whole-picture decoder, injected: the renderer then decodes every picture whole.
    static let wholeDecoder: HEIFTileDecoder = { parameterSets, data, lengthSize, limits in
        try HEVCDecoder.decode(parameterSets: parameterSets, data: data, lengthSize: lengthSize, limits: limits)
    }

    @Test(arguments: heifFiles)
    func heifImagesMatchWholeDecode(_ file: String) throws {
        let bytes = try HEIFFixtures.bytes(file)
        for reduction in [1, 2, 4, 8] {
            var streamed: DecodedImage?, whole: DecodedImage?
            let sk = Self.kind { streamed = try HEIFDecoder.decode(bytes, reduction: reduction, limits: .default) }
            let wk = Self.kind { whole = try HEIFDecoder.decode(bytes, reduction: reduction, limits: .default, tileDecoder: Self.wholeDecoder) }
            #expect(sk == wk, "\(file) 1/\(reduction): streamed \(String(describing: sk)), whole \(String(describing: wk))")
            if let streamed, let whole {
                #expect(streamed.bitmap == whole.bitmap, "\(file) 1/\(reduction): streamed bitmap differs")
            }
        }
    }
}
