import Testing
@testable import ImageCodec

// The VP8 kernels of `KernelDispatch` (loop filters and YUV→RGB rows) run both ways, the
// portable build and the AVX2 build of the same source, on random and real planes: the
// results must be identical byte for byte, including the guard bytes around the output.

/// Both sets where this CPU has both; the portable set twice otherwise.
private let sets = (KernelDispatch.portable, KernelDispatch.avx2 ?? KernelDispatch.portable)

/// Planes of `columns` × `rows` macroblocks: smooth gradients with noise of `noise` (so that
/// the filters' thresholds fall both ways), with an 8-byte margin left and right.
private struct Planes {
    let columns: Int, rows: Int
    var y: [UInt8], u: [UInt8], v: [UInt8]
    var yStride: Int { columns * 16 + 16 }
    var uvStride: Int { columns * 8 + 16 }

    init(columns: Int, rows: Int, noise: Int, rng: inout SplitMix64) {
        self.columns = columns
        self.rows = rows
        y = []; u = []; v = []
        func plane(_ stride: Int, _ height: Int, _ rng: inout SplitMix64) -> [UInt8] {
            let gx = rng.int(-3...3), gy = rng.int(-3...3), base = rng.int(40...200)
            return (0..<(stride * height)).map { i in
                UInt8(clamping: base + gx * (i % stride) / 4 + gy * (i / stride) / 4 + rng.int(-noise...noise))
            }
        }
        y = plane(yStride, rows * 16, &rng)
        u = plane(uvStride, rows * 8, &rng)
        v = plane(uvStride, rows * 8, &rng)
    }

    /// Filters every macroblock in raster order with `set`, as the frame decoder does.
    mutating func filter(_ set: KernelDispatch, simple: Bool, parameters: [(Int32, Int32, Int32, Bool)]) {
        let ys = yStride, uvs = uvStride
        y.withUnsafeMutableBufferPointer { yb in
            u.withUnsafeMutableBufferPointer { ub in
                v.withUnsafeMutableBufferPointer { vb in
                    for my in 0..<rows {
                        for mx in 0..<columns {
                            let (limit, interior, hev, inner) = parameters[my * columns + mx]
                            let yp = yb.baseAddress! + my * 16 * ys + 8 + mx * 16
                            if simple {
                                set.vp8SimpleFilter(yp, ys, mx > 0, my > 0, inner, limit)
                            } else {
                                set.vp8NormalFilter(yp, ub.baseAddress! + my * 8 * uvs + 8 + mx * 8, vb.baseAddress! + my * 8 * uvs + 8 + mx * 8,
                                                    ys, uvs, mx > 0, my > 0, inner, limit, interior, hev)
                            }
                        }
                    }
                }
            }
        }
    }
}

private func convert(_ set: KernelDispatch, _ y: [UInt8], _ u: [UInt8], _ v: [UInt8], alpha: [UInt8]?, row: Int, width: Int, height: Int,
                     yStride: Int, uvStride: Int, channels: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0x5A, count: width * channels + 64)
    y.withUnsafeBufferPointer { yp in
        u.withUnsafeBufferPointer { up in
            v.withUnsafeBufferPointer { vp in
                out.withUnsafeMutableBufferPointer { o in
                    if let alpha {
                        alpha.withUnsafeBufferPointer {
                            set.vp8ConvertRow(yp.baseAddress!, row, width, height, yStride, up.baseAddress!, vp.baseAddress!, uvStride,
                                              $0.baseAddress!, channels, o.baseAddress! + 32)
                        }
                    } else {
                        set.vp8ConvertRow(yp.baseAddress!, row, width, height, yStride, up.baseAddress!, vp.baseAddress!, uvStride,
                                          nil, channels, o.baseAddress! + 32)
                    }
                }
            }
        }
    }
    return out
}

@Suite("Kernel dispatch: VP8 kernels, portable and AVX2 builds agree")
struct WebPKernelDispatchTests {
    @Test("loop filters: random planes, every filter strength range, simple and normal")
    func loopFilterRandom() {
        var rng = SplitMix64(seed: 6386)
        var mismatches = 0
        for n in 0..<300 {
            let columns = rng.int(1...4), rows = rng.int(1...3)
            let noise = [0, 2, 6, 20, 128][n % 5]
            let planes = Planes(columns: columns, rows: rows, noise: noise, rng: &rng)
            let parameters = (0..<(columns * rows)).map { _ in
                (Int32(rng.int(0...80)), Int32(rng.int(1...63)), Int32(rng.int(0...2)), rng.int(0...3) > 0)
            }
            for simple in [false, true] {
                var a = planes, b = planes
                a.filter(sets.0, simple: simple, parameters: parameters)
                b.filter(sets.1, simple: simple, parameters: parameters)
                if a.y != b.y || a.u != b.u || a.v != b.v { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("YUV→RGB rows: random planes of every width up to 100, RGB and RGBA, with and without alpha")
    func convertRowRandom() {
        var rng = SplitMix64(seed: 601)
        var mismatches = 0
        for width in 1...100 {
            let height = rng.int(1...6)
            let yStride = (width + 15) / 16 * 16, uvStride = yStride / 2
            let chromaRows = (height + 1) / 2
            let y = (0..<(yStride * height)).map { _ in UInt8(rng.int(0...255)) }
            let u = (0..<(uvStride * chromaRows)).map { _ in UInt8(rng.int(0...255)) }
            let v = (0..<(uvStride * chromaRows)).map { _ in UInt8(rng.int(0...255)) }
            let alpha = (0..<(width * height)).map { _ in UInt8(rng.int(0...255)) }
            for row in 0..<height {
                for (channels, a) in [(3, nil), (4, nil), (4, alpha)] as [(Int, [UInt8]?)] {
                    let p = convert(sets.0, y, u, v, alpha: a, row: row, width: width, height: height, yStride: yStride, uvStride: uvStride, channels: channels)
                    let q = convert(sets.1, y, u, v, alpha: a, row: row, width: width, height: height, yStride: yStride, uvStride: uvStride, channels: channels)
                    if p != q { mismatches += 1 }
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("real planes: a photo fixture's decoded planes filtered and converted both ways")
    func realPlanes() throws {
        let bytes = try WebPFixtures.bytes("lossy_partitions8_128x96.webp")
        let container = try bytes.withUnsafeBufferPointer { try WebPContainer.read($0) }
        let decoded = try bytes.withUnsafeBufferPointer { try VP8FrameDecoder.decode($0, chunk: container.image) }
        var mismatches = 0
        for row in 0..<decoded.height {
            for channels in [3, 4] {
                let p = convert(sets.0, decoded.y, decoded.u, decoded.v, alpha: nil, row: row, width: decoded.width, height: decoded.height,
                                yStride: decoded.yStride, uvStride: decoded.uvStride, channels: channels)
                let q = convert(sets.1, decoded.y, decoded.u, decoded.v, alpha: nil, row: row, width: decoded.width, height: decoded.height,
                                yStride: decoded.yStride, uvStride: decoded.uvStride, channels: channels)
                if p != q { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        // The decoded planes as filter input (photo content), at two strengths.
        var rng = SplitMix64(seed: 15)
        var planes = Planes(columns: decoded.yStride / 16 - 1, rows: decoded.height / 16, noise: 0, rng: &rng)
        for r in 0..<(planes.rows * 16) {
            for x in 0..<planes.yStride where x < decoded.yStride { planes.y[r * planes.yStride + x] = decoded.y[r * decoded.yStride + x] }
        }
        for r in 0..<(planes.rows * 8) {
            for x in 0..<planes.uvStride where x < decoded.uvStride {
                planes.u[r * planes.uvStride + x] = decoded.u[r * decoded.uvStride + x]
                planes.v[r * planes.uvStride + x] = decoded.v[r * decoded.uvStride + x]
            }
        }
        for (limit, interior) in [(Int32(20), Int32(10)), (60, 40)] {
            let parameters = [(Int32, Int32, Int32, Bool)](repeating: (limit, interior, 1, true), count: planes.columns * planes.rows)
            var a = planes, b = planes
            a.filter(sets.0, simple: false, parameters: parameters)
            b.filter(sets.1, simple: false, parameters: parameters)
            #expect(a.y == b.y && a.u == b.u && a.v == b.v)
            #expect(a.y != planes.y)
        }
    }
}
