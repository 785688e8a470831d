import Foundation
import ImageCodec

/// A tiny blurred likeness of a rendered image, 19 bytes for a square, that pages paint while
/// the real image loads: the idea of ThumbHash (a handful of low-frequency cosine coefficients
/// of the picture in a luma/chroma space, quantised to 4 bits), written for this gallery.
///
/// Made from the pixels the renderer already holds (one pass over the output, about 0.3 ms
/// for a 480×480 cover), never from a second decode. `bytes` is the stored form (the library
/// index may keep it); `dataURL(width:height:)` turns it into a small PNG that CSS scales up
/// as a background, which browsers draw smoothly without any script.
///
/// Layout of `bytes`:
/// - byte 0: luma grid lx (high nibble) and ly (low nibble), each 1...7
/// - bytes 1-3: mean L, P, Q (L in 0...255; P and Q as 128 + 127·value)
/// - bytes 4-6: the largest |AC| of L, P, Q, each as 255·value
/// - then 4-bit AC coefficients, two per byte: L's triangle (cx·ly + cy·lx < lx·ly, without
///   the mean), then P's and Q's (cx + cy < 3, without the mean); a last odd nibble is 0.
public struct PlaceholderPreview: Sendable, Equatable, Hashable {
    /// The stored form; see the type's comment.
    public let bytes: [UInt8]

    /// Coefficients along the longer side of the luma grid.
    static let lumaCoefficients = 5
    /// Chroma grid (both sides): colour changes slowly next to brightness, so fewer suffice.
    static let chromaCoefficients = 3
    /// Box-averaged grid the coefficients are computed from (longer side).
    static let analysisEdge = 16

    /// A preview from its stored bytes; nil when they are not a well-formed version-1 preview.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= 7 else { return nil }
        let lx = Int(bytes[0] >> 4), ly = Int(bytes[0] & 15)
        guard (1...7).contains(lx), (1...7).contains(ly) else { return nil }
        let nibbles = PlaceholderPreview.lumaTriangle(lx, ly).count - 1 + 2 * (PlaceholderPreview.chromaTriangle.count - 1)
        guard bytes.count == 7 + (nibbles + 1) / 2 else { return nil }
        self.bytes = bytes
    }

    /// The preview of `bitmap` (any layout; alpha is ignored); nil for an empty bitmap.
    public init?(of bitmap: Bitmap) {
        guard bitmap.width > 0, bitmap.height > 0, bitmap.pixels.count >= bitmap.width * bitmap.height * bitmap.channels else { return nil }
        let long = max(bitmap.width, bitmap.height)
        let gw = max(1, min(bitmap.width, PlaceholderPreview.analysisEdge * bitmap.width / long))
        let gh = max(1, min(bitmap.height, PlaceholderPreview.analysisEdge * bitmap.height / long))
        let (l, p, q) = PlaceholderPreview.boxAverage(bitmap, width: gw, height: gh)
        let lxy = PlaceholderPreview.lumaGrid(width: gw, height: gh)
        let lumaCells = PlaceholderPreview.lumaTriangle(lxy.x, lxy.y)
        let chromaCells = PlaceholderPreview.chromaTriangle
        let lc = PlaceholderPreview.cosineCoefficients(l, width: gw, height: gh, cells: lumaCells)
        let pc = PlaceholderPreview.cosineCoefficients(p, width: gw, height: gh, cells: chromaCells)
        let qc = PlaceholderPreview.cosineCoefficients(q, width: gw, height: gh, cells: chromaCells)

        func byte(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        func signedByte(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (128 + v * 127).rounded()))) }
        func scale(_ c: [Double]) -> Double { c.dropFirst().map(abs).max() ?? 0 }
        let scales = [scale(lc), scale(pc), scale(qc)].map { min(1, $0) }
        var out: [UInt8] = [UInt8(lxy.x << 4 | lxy.y), byte(lc[0]), signedByte(pc[0]), signedByte(qc[0])]
        out += scales.map(byte)
        var nibbles: [UInt8] = []
        for (coefficients, s) in zip([lc, pc, qc], scales) {
            let stored = Double(byte(s)) / 255
            for c in coefficients.dropFirst() {
                // -scale...scale onto 0...15, 7.5 being zero (so zero is never exact: 7 or 8).
                let v = stored > 0 ? c / stored : 0
                nibbles.append(UInt8(max(0, min(15, ((v + 1) * 7.5).rounded()))))
            }
        }
        if nibbles.count % 2 == 1 { nibbles.append(0) }
        for i in stride(from: 0, to: nibbles.count, by: 2) { out.append(nibbles[i] << 4 | nibbles[i + 1]) }
        bytes = out
    }

    /// The mean colour as "#rrggbb" (the flat placeholder).
    public var averageColour: String {
        let (r, g, b) = PlaceholderPreview.rgb(l: Double(bytes[1]) / 255, p: (Double(bytes[2]) - 128) / 127, q: (Double(bytes[3]) - 128) / 127)
        return String(format: "#%02x%02x%02x", r, g, b)
    }

    /// The preview drawn at `width` × `height` pixels, RGB, row after row.
    public func pixels(width: Int, height: Int) -> [UInt8] {
        let lx = Int(bytes[0] >> 4), ly = Int(bytes[0] & 15)
        let lumaCells = PlaceholderPreview.lumaTriangle(lx, ly), chromaCells = PlaceholderPreview.chromaTriangle
        var nibbles: [Double] = []
        for b in bytes[7...] { nibbles.append(Double(b >> 4)); nibbles.append(Double(b & 15)) }
        var cursor = 0
        func coefficients(mean: Double, scale: Double, count: Int) -> [Double] {
            var out = [mean]
            for _ in 1..<count {
                out.append((nibbles[cursor] / 7.5 - 1) * scale)
                cursor += 1
            }
            return out
        }
        let lc = coefficients(mean: Double(bytes[1]) / 255, scale: Double(bytes[4]) / 255, count: lumaCells.count)
        let pc = coefficients(mean: (Double(bytes[2]) - 128) / 127, scale: Double(bytes[5]) / 255, count: chromaCells.count)
        let qc = coefficients(mean: (Double(bytes[3]) - 128) / 127, scale: Double(bytes[6]) / 255, count: chromaCells.count)
        var out = [UInt8](repeating: 0, count: max(0, width * height * 3))
        for y in 0..<height {
            for x in 0..<width {
                func value(_ c: [Double], _ cells: [(Int, Int)]) -> Double {
                    var sum = 0.0
                    for (k, (cx, cy)) in cells.enumerated() {
                        sum += c[k] * cos(Double.pi * Double(cx) * (Double(x) + 0.5) / Double(width))
                            * cos(Double.pi * Double(cy) * (Double(y) + 0.5) / Double(height))
                    }
                    return sum
                }
                let (r, g, b) = PlaceholderPreview.rgb(l: value(lc, lumaCells), p: value(pc, chromaCells), q: value(qc, chromaCells))
                let i = (y * width + x) * 3
                out[i] = r; out[i + 1] = g; out[i + 2] = b
            }
        }
        return out
    }

    /// A `data:image/png;base64,…` URL of the preview drawn at `width` × `height` (8×8 by
    /// default: about 200 characters; the browser's smooth scaling does the rest of the blur).
    public func dataURL(width: Int = 8, height: Int = 8) -> String? {
        guard width > 0, height > 0, width <= 64, height <= 64,
              let bitmap = try? Bitmap(width: width, height: height, layout: .rgb, pixels: pixels(width: width, height: height)),
              let png = try? PNGEncoder.encode(bitmap, compressionLevel: 9) else { return nil }
        return "data:image/png;base64," + Data(png).base64EncodedString()
    }

    // MARK: Analysis

    /// The box-averaged grid in L, P, Q (L = mean of R, G, B in 0...1; P = (R+G)/2 − B and
    /// Q = R − G in −1...1).
    static func boxAverage(_ bitmap: Bitmap, width gw: Int, height gh: Int) -> ([Double], [Double], [Double]) {
        var sums = [Double](repeating: 0, count: gw * gh * 3)
        var counts = [Int](repeating: 0, count: gw * gh)
        let c = bitmap.channels, w = bitmap.width, h = bitmap.height
        bitmap.pixels.withUnsafeBufferPointer { px in
            sums.withUnsafeMutableBufferPointer { s in
                counts.withUnsafeMutableBufferPointer { n in
                    for y in 0..<h {
                        let row = y &* gh / h &* gw
                        var i = y &* w &* c
                        for x in 0..<w {
                            let cell = row &+ x &* gw / w
                            let r = Double(px[i]), g = c >= 3 ? Double(px[i &+ 1]) : r, b = c >= 3 ? Double(px[i &+ 2]) : r
                            s[cell &* 3] += r; s[cell &* 3 &+ 1] += g; s[cell &* 3 &+ 2] += b
                            n[cell] &+= 1
                            i &+= c
                        }
                    }
                }
            }
        }
        var l = [Double](repeating: 0, count: gw * gh), p = l, q = l
        for cell in 0..<(gw * gh) {
            let k = 255 * Double(max(1, counts[cell]))
            let r = sums[cell * 3] / k, g = sums[cell * 3 + 1] / k, b = sums[cell * 3 + 2] / k
            l[cell] = (r + g + b) / 3
            p[cell] = (r + g) / 2 - b
            q[cell] = r - g
        }
        return (l, p, q)
    }

    /// The luma grid for an image of this aspect: `lumaCoefficients` along the longer side,
    /// proportionally fewer (at least 3) along the shorter one.
    static func lumaGrid(width: Int, height: Int) -> (x: Int, y: Int) {
        let n = lumaCoefficients
        if width >= height { return (n, max(3, min(n, (n * height + width / 2) / width))) }
        return (max(3, min(n, (n * width + height / 2) / height)), n)
    }

    /// Coefficient positions (cx, cy) kept for a luma grid: the low-frequency triangle.
    static func lumaTriangle(_ lx: Int, _ ly: Int) -> [(Int, Int)] {
        var out: [(Int, Int)] = []
        for cy in 0..<ly { for cx in 0..<lx where cx * ly + cy * lx < lx * ly { out.append((cx, cy)) } }
        return out
    }

    static let chromaTriangle: [(Int, Int)] = {
        var out: [(Int, Int)] = []
        for cy in 0..<chromaCoefficients { for cx in 0..<chromaCoefficients where cx + cy < chromaCoefficients { out.append((cx, cy)) } }
        return out
    }()

    /// Projections of `values` (a `width` × `height` grid) onto the cosines of `cells`, scaled so
    /// that summing coefficient × cosines gives the values back (the mean is the first).
    static func cosineCoefficients(_ values: [Double], width: Int, height: Int, cells: [(Int, Int)]) -> [Double] {
        cells.map { cx, cy in
            // A grid smaller than the coefficient grid cannot hold that frequency (it would
            // alias onto a lower one): such a coefficient stays zero.
            guard cx < width, cy < height else { return 0 }
            var sum = 0.0
            for y in 0..<height {
                let fy = cos(Double.pi * Double(cy) * (Double(y) + 0.5) / Double(height))
                for x in 0..<width {
                    sum += values[y * width + x] * fy * cos(Double.pi * Double(cx) * (Double(x) + 0.5) / Double(width))
                }
            }
            let norm = (cx == 0 ? 1.0 : 2.0) * (cy == 0 ? 1.0 : 2.0)
            return sum * norm / Double(width * height)
        }
    }

    static func rgb(l: Double, p: Double, q: Double) -> (UInt8, UInt8, UInt8) {
        let b = l - 2 * p / 3
        let r = (3 * l - b + q) / 2
        let g = r - q
        func byte(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        return (byte(r), byte(g), byte(b))
    }
}
