/// Scaling lists (H.265 7.3.4, 7.4.5): parsing scaling_list_data, the default lists, and the
/// expansion to per-position scaling factors m[x][y] that dequantisation multiplies by.
struct HEVCScalingList: Sendable {
    /// Factors per size (0: 4×4 ... 3: 32×32) and matrixId (0...5: intra Y, Cb, Cr, inter
    /// Y, Cb, Cr), row-major (y * size + x).
    var factors: [[[UInt8]]]

    /// Table 7-6 for intra (matrixId 0...2), in up-right diagonal order of an 8×8 block.
    private static let defaultIntra: [UInt8] = [
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 16, 17, 16, 17, 18, 17, 18, 18, 17, 18, 21, 19, 20,
        21, 20, 19, 21, 24, 22, 22, 24, 24, 22, 22, 24, 25, 25, 27, 30, 27, 25, 25, 29, 31, 35, 35, 31,
        29, 36, 41, 44, 41, 36, 47, 54, 54, 47, 65, 70, 65, 88, 88, 115,
    ]
    /// Table 7-6 for inter (matrixId 3...5).
    private static let defaultInter: [UInt8] = [
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 18, 18, 18, 18, 18, 18, 20, 20, 20,
        20, 20, 20, 20, 24, 24, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 28, 28, 28, 28, 28,
        28, 33, 33, 33, 33, 33, 41, 41, 41, 41, 54, 54, 54, 71, 71, 91,
    ]

    private static func defaultList(sizeId: Int, matrixId: Int) -> [UInt8] {
        if sizeId == 0 { return [UInt8](repeating: 16, count: 16) }
        return matrixId < 3 ? defaultIntra : defaultInter
    }

    /// The default lists (scaling_list_enabled_flag without transmitted data).
    static let defaults: HEVCScalingList = {
        var lists: [[[UInt8]]] = []
        var dc: [[Int]] = []
        for sizeId in 0..<4 {
            lists.append((0..<6).map { defaultList(sizeId: sizeId, matrixId: $0) })
            dc.append([Int](repeating: 16, count: 6))
        }
        return HEVCScalingList(lists: lists, dc: dc)
    }()

    /// Parses scaling_list_data().
    static func parse(_ r: inout HEVCBitReader) throws -> HEVCScalingList {
        var lists: [[[UInt8]]] = (0..<4).map { s in (0..<6).map { defaultList(sizeId: s, matrixId: $0) } }
        var dc = [[Int]](repeating: [Int](repeating: 16, count: 6), count: 4)
        for sizeId in 0..<4 {
            let step = sizeId == 3 ? 3 : 1
            for matrixId in stride(from: 0, to: 6, by: step) {
                if try !r.flag() {
                    let delta = try r.ue(in: 0...(matrixId / step), "scaling_list_pred_matrix_id_delta")
                    if delta == 0 {
                        lists[sizeId][matrixId] = defaultList(sizeId: sizeId, matrixId: matrixId)
                        dc[sizeId][matrixId] = 16
                    } else {
                        let ref = matrixId - delta * step
                        lists[sizeId][matrixId] = lists[sizeId][ref]
                        dc[sizeId][matrixId] = dc[sizeId][ref]
                    }
                } else {
                    var next = 8
                    let count = min(64, 1 << (4 + (sizeId << 1)))
                    if sizeId > 1 {
                        next = try r.se(in: -7...247, "scaling_list_dc_coef_minus8") + 8
                        dc[sizeId][matrixId] = next
                    }
                    var list = [UInt8](repeating: 0, count: count)
                    for i in 0..<count {
                        let delta = try r.se(in: -128...127, "scaling_list_delta_coef")
                        next = (next + delta + 256) % 256
                        list[i] = UInt8(next)
                    }
                    lists[sizeId][matrixId] = list
                }
            }
        }
        // 32×32 chroma matrices are only coded for 4:4:4; for the formats we decode they are
        // unused, but keep them defined (7.4.5: copied from the 16×16 ones).
        for m in [1, 2, 4, 5] {
            lists[3][m] = lists[2][m]
            dc[3][m] = dc[2][m]
        }
        return HEVCScalingList(lists: lists, dc: dc)
    }

    private init(lists: [[[UInt8]]], dc: [[Int]]) {
        let diag4 = HEVCScanOrder.diagonal(log2Size: 2)
        let diag8 = HEVCScanOrder.diagonal(log2Size: 3)
        var factors: [[[UInt8]]] = []
        for sizeId in 0..<4 {
            let size = 4 << sizeId
            var perMatrix: [[UInt8]] = []
            for m in 0..<6 {
                var f = [UInt8](repeating: 16, count: size * size)
                let list = lists[sizeId][m]
                if sizeId == 0 {
                    for i in 0..<16 {
                        let (x, y) = diag4[i]
                        f[y * 4 + x] = list[i]
                    }
                } else {
                    let rep = size / 8
                    for i in 0..<64 {
                        let (x, y) = diag8[i]
                        for j in 0..<rep {
                            for k in 0..<rep { f[(y * rep + j) * size + x * rep + k] = list[i] }
                        }
                    }
                    if sizeId >= 2 { f[0] = UInt8(truncatingIfNeeded: dc[sizeId][m]) }
                }
                perMatrix.append(f)
            }
            factors.append(perMatrix)
        }
        self.factors = factors
    }
}

/// Coefficient scan orders (H.265 6.5.3-6.5.5) as (x, y) positions.
enum HEVCScanOrder {
    /// Up-right diagonal scan of a square block of side 1 << log2Size.
    static func diagonal(log2Size: Int) -> [(Int, Int)] {
        let size = 1 << log2Size
        var out: [(Int, Int)] = []
        out.reserveCapacity(size * size)
        var x = 0, y = 0
        while out.count < size * size {
            while y >= 0 {
                if x < size && y < size { out.append((x, y)) }
                y -= 1
                x += 1
            }
            y = x
            x = 0
        }
        return out
    }

    static func horizontal(log2Size: Int) -> [(Int, Int)] {
        let size = 1 << log2Size
        return (0..<(size * size)).map { ($0 % size, $0 / size) }
    }

    static func vertical(log2Size: Int) -> [(Int, Int)] {
        let size = 1 << log2Size
        return (0..<(size * size)).map { ($0 / size, $0 % size) }
    }
}
