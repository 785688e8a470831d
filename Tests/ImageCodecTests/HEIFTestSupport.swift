import CZlib
import Foundation
@testable import ImageCodec

/// Fixtures under Tests/Fixtures/heic and a reference HEVC tile decoder (libde265's dec265),
/// so the HEIF container, grid, colour conversion, transforms and reduction are checked against
/// libheif's references independently of our own HEVC decoder.
enum HEIFFixtures {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests" { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures/heic")
    }()

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    static let dec265 = "/usr/bin/libde265-dec265"
    static var dec265Available: Bool { FileManager.default.isExecutableFile(atPath: dec265) }

    /// Shared-fixture files libheif decodes, with their full-size reference PNGs.
    static let decodable: [String] = [
        "heif_LA_8__128x128.heif", "heif_LA_8__29x100.heif", "heif_L_10__128x128.heif", "heif_L_10__29x100.heif",
        "heif_L_12__128x128.heif", "heif_L_12__29x100.heif", "heif_L_8__128x128.heif", "heif_L_8__29x100.heif",
        "heif_RGBA_10__128x128.heif", "heif_RGBA_10__29x100.heif", "heif_RGBA_12__128x128.heif", "heif_RGBA_12__29x100.heif",
        "heif_RGBA_8__128x128.heif", "heif_RGBA_8__29x100.heif", "heif_RGB_10__128x128.heif", "heif_RGB_10__29x100.heif",
        "heif_RGB_12__128x128.heif", "heif_RGB_12__29x100.heif", "heif_RGB_8__128x128.heif", "heif_RGB_8__29x100.heif",
        "heif_other_L_exif_xmp_iptc.heic", "heif_other_RGB_8_chroma444.heif", "heif_truncated_truncated.heic", "heif_zPug_3.heic",
        "generated/rot90_mirror0.heic", "generated/mirror1_rot270_clap_even.heic", "generated/vui709_limited.heic",
        "generated/nclx709_full_over_vui601_limited.heic", "generated/yuv444_10bit_limited_nclx.heic",
        "generated/grid_3x2_rot180.heic", "generated/iden_rot90_of_mirror.heic", "generated/with_thumbnail.heic",
        "generated/orient_irot1.heic", "generated/orient_imir1.heic", "generated/orient_irot3_imir0.heic",
        "generated/iovl_two_inputs.heic", "generated/iovl_negative_long.heic", "generated/iovl_grid_rot90.heic",
        "generated/alpha_grid.heic", "generated/thumb_magenta.heic",
    ]

    /// Odd crops and odd-sized turns of 4:2:0 images: libheif first upsamples chroma to 4:4:4
    /// bilinearly there, we keep nearest-neighbour chroma, so colour edges differ (documented).
    static let oddGeometry = ["generated/grid_3x2_odd_rot180.heic", "generated/clap_odd_top.heic"]

    /// Large files: CRC-32 of libheif's full-size pixels and a 1/8 box-reduced reference.
    static let large = ["heif_other_arrow.heic", "heif_other_empty_icc.heic", "heif_other_invalid_id.heic"]

    static func referencePath(_ file: String) -> String {
        let stem = (URL(fileURLWithPath: file).lastPathComponent as NSString).deletingPathExtension
        return file.hasPrefix("generated/") ? "reference/gen_\(stem).png" : "reference/\(stem).png"
    }

    /// A reference PNG decoded to 8-bit samples (16-bit gray PNGs keep their high byte, which
    /// is the sample >> (bits - 8) that libheif's 8-bit output has).
    static func reference(_ path: String) throws -> Bitmap {
        try ImageCodec.decode(try bytes(path)).bitmap
    }

    struct LargeReference { let crc32: UInt32; let width: Int; let height: Int; let reduced8: String }

    static func largeReference(_ file: String) throws -> LargeReference {
        let data = try Data(contentsOf: root.appendingPathComponent("reference/index.json"))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]], let e = json[file],
              let crc = e["crc32"] as? NSNumber, let w = e["width"] as? Int, let h = e["height"] as? Int, let r = e["reduced8"] as? String else {
            throw FixtureError("no large reference for \(file)")
        }
        return LargeReference(crc32: crc.uint32Value, width: w, height: h, reduced8: r)
    }

    /// `bitmap` in the reference's layout (references are gray, RGB or RGBA; our gray+alpha
    /// output is compared as RGBA, as pillow-heif writes LA images).
    static func matching(_ bitmap: Bitmap, _ reference: Bitmap) -> Bitmap {
        bitmap.layout == reference.layout ? bitmap : bitmap.converted(to: reference.layout)
    }

    /// The tile decoder tests inject: the item's NAL units as an Annex B stream through dec265.
    static func referenceTileDecoder(_ parameterSets: [[UInt8]], _ data: ArraySlice<UInt8>, _ lengthSize: Int,
                                     _ limits: DecodeLimits) throws -> HEVCPicture {
        try decodeWithDec265(parameterSets: parameterSets, data: data, lengthSize: lengthSize)
    }

    static func annexB(parameterSets: [[UInt8]], data: ArraySlice<UInt8>, lengthSize: Int) throws -> [UInt8] {
        let start: [UInt8] = [0, 0, 0, 1]
        var stream: [UInt8] = []
        for nal in parameterSets { stream += start + nal }
        var i = data.startIndex
        while i + lengthSize <= data.endIndex {
            var n = 0
            for k in 0..<lengthSize { n = n << 8 | Int(data[i + k]) }
            i += lengthSize
            guard n <= data.endIndex - i else { throw ImageCodecError(.corrupt, "NAL length past the item") }
            stream += start + data[i..<(i + n)]
            i += n
        }
        return stream
    }

    static func decodeWithDec265(parameterSets: [[UInt8]], data: ArraySlice<UInt8>, lengthSize: Int) throws -> HEVCPicture {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("heif-dec265-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.265"), output = dir.appendingPathComponent("out.yuv")
        try Data(try annexB(parameterSets: parameterSets, data: data, lengthSize: lengthSize)).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dec265)
        process.arguments = ["-d", "-q", "-o", output.path, input.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let log = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        func field(_ name: String) -> Int? {
            // Lines look like "INFO: chroma_format_idc       : 1 (4:2:0)": the value follows
            // the first colon after the name.
            for line in log.split(separator: "\n") {
                guard let r = line.range(of: name), let colon = line[r.upperBound...].firstIndex(of: ":") else { continue }
                let rest = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if let v = Int(rest.split(separator: " ").first ?? "") { return v }
            }
            return nil
        }
        guard let yuv = try? [UInt8](Data(contentsOf: output)), !yuv.isEmpty,
              let chromaIdc = field("chroma_format_idc"), let format = HEVCChromaFormat(rawValue: chromaIdc),
              let pw = field("pic_width_in_luma_samples"), let ph = field("pic_height_in_luma_samples"),
              let bdl = field("bit_depth_luma"), let bdc = field("bit_depth_chroma") else {
            throw ImageCodecError(.corrupt, "dec265 could not decode the tile")
        }
        let (sx, sy) = format.subsampling
        let cropped = field("conformance_window_flag") == 1
        let w = pw - (cropped ? sx * ((field("conf_win_left_offset") ?? 0) + (field("conf_win_right_offset") ?? 0)) : 0)
        let h = ph - (cropped ? sy * ((field("conf_win_top_offset") ?? 0) + (field("conf_win_bottom_offset") ?? 0)) : 0)
        let bytesPerSample = bdl > 8 ? 2 : 1
        let cw = (w + sx - 1) / sx, ch = (h + sy - 1) / sy
        func plane(_ offset: Int, _ pw: Int, _ ph: Int) throws -> HEVCPlane {
            let n = pw * ph
            guard yuv.count >= offset + n * bytesPerSample else { throw ImageCodecError(.corrupt, "dec265 output is short") }
            var s = [UInt16](repeating: 0, count: n)
            for i in 0..<n {
                s[i] = bytesPerSample == 1 ? UInt16(yuv[offset + i]) : UInt16(yuv[offset + 2 * i]) | UInt16(yuv[offset + 2 * i + 1]) << 8
            }
            return HEVCPlane(width: pw, height: ph, samples: s)
        }
        var planes = [try plane(0, w, h)]
        if format != .monochrome {
            planes.append(try plane(w * h * bytesPerSample, cw, ch))
            planes.append(try plane((w * h + cw * ch) * bytesPerSample, cw, ch))
        }
        var signal = HEVCVideoSignal()
        if field("vui_parameters_present_flag") == 1 {
            signal.fullRange = field("video_full_range_flag").map { $0 == 1 } ?? false
            signal.matrixCoefficients = field("matrix_coeffs") ?? 2
            signal.colourPrimaries = field("colour_primaries ") ?? 2
        }
        return HEVCPicture(width: w, height: h, chromaFormat: format, bitDepthLuma: bdl, bitDepthChroma: bdc,
                           planes: planes, videoSignal: signal)
    }

    /// Box-reduces `bitmap` by `factor` with blocks anchored at the top left (rounded means).
    static func boxReduced(_ bitmap: Bitmap, factor f: Int) throws -> Bitmap {
        let w = (bitmap.width + f - 1) / f, h = (bitmap.height + f - 1) / f, c = bitmap.channels
        var out = [UInt8](repeating: 0, count: w * h * c)
        for by in 0..<h {
            for bx in 0..<w {
                var sums = [Int](repeating: 0, count: c)
                var n = 0
                for y in (by * f)..<min(bitmap.height, by * f + f) {
                    for x in (bx * f)..<min(bitmap.width, bx * f + f) {
                        for k in 0..<c { sums[k] += Int(bitmap.pixels[(y * bitmap.width + x) * c + k]) }
                        n += 1
                    }
                }
                for k in 0..<c { out[(by * w + bx) * c + k] = UInt8((sums[k] + n / 2) / n) }
            }
        }
        return try Bitmap(width: w, height: h, layout: bitmap.layout, pixels: out)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }
}
