/// Constant tables of ITU-T H.264 shared by parsing and reconstruction.
enum H264Tables {
    /// 4x4 frame zig-zag scan (8.5.6): scan position -> raster index.
    static let zigzag4: [Int] = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15]

    /// 8x8 frame zig-zag scan (8.5.7): scan position -> raster index.
    static let zigzag8: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// normAdjust4x4 (8-315): v[m][0...2].
    static let normAdjust4: [[Int]] = [[10, 16, 13], [11, 18, 14], [13, 20, 16], [14, 23, 18], [16, 25, 20], [18, 29, 23]]

    /// normAdjust8x8 (8-318): v[m][0...5].
    static let normAdjust8: [[Int]] = [
        [20, 18, 32, 19, 25, 24], [22, 19, 35, 21, 28, 26], [26, 23, 42, 24, 33, 31],
        [28, 25, 45, 26, 35, 33], [32, 28, 51, 30, 40, 38], [36, 32, 58, 34, 46, 43],
    ]

    /// Default_4x4_Intra / _Inter and Default_8x8_Intra / _Inter (table 7-3, 7-4), in zig-zag order.
    static let default4Intra: [UInt8] = [6, 13, 13, 20, 20, 20, 28, 28, 28, 28, 32, 32, 32, 37, 37, 42]
    static let default4Inter: [UInt8] = [10, 14, 14, 20, 20, 20, 24, 24, 24, 24, 27, 27, 27, 30, 30, 34]
    static let default8Intra: [UInt8] = [
        6, 10, 10, 13, 11, 13, 16, 16, 16, 16, 18, 18, 18, 18, 18, 23,
        23, 23, 23, 23, 23, 25, 25, 25, 25, 25, 25, 25, 27, 27, 27, 27,
        27, 27, 27, 27, 29, 29, 29, 29, 29, 29, 29, 31, 31, 31, 31, 31,
        31, 33, 33, 33, 33, 33, 36, 36, 36, 36, 38, 38, 38, 40, 40, 42,
    ]
    static let default8Inter: [UInt8] = [
        9, 13, 13, 15, 13, 15, 17, 17, 17, 17, 19, 19, 19, 19, 19, 21,
        21, 21, 21, 21, 21, 22, 22, 22, 22, 22, 22, 22, 24, 24, 24, 24,
        24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 27, 27, 27, 27, 27,
        27, 28, 28, 28, 28, 28, 30, 30, 30, 30, 32, 32, 32, 33, 33, 35,
    ]

    /// QPc as a function of qPI (table 8-15), for qPI 0...51.
    static let chromaQP: [Int] = (0..<52).map { q in
        q < 30 ? q : [29, 30, 31, 32, 32, 33, 34, 34, 35, 35, 36, 36, 37, 37, 37, 38, 38, 38, 39, 39, 39, 39][q - 30]
    }

    /// coded_block_pattern of an intra macroblock from its me(v) codeNum (table 9-4), for
    /// 4:2:0 and for monochrome.
    static let intraCBP: [UInt8] = [
        47, 31, 15, 0, 23, 27, 29, 30, 7, 11, 13, 14, 39, 43, 45, 46,
        16, 3, 5, 10, 12, 19, 21, 26, 28, 35, 37, 42, 44, 1, 2, 4,
        8, 17, 18, 20, 24, 6, 9, 22, 25, 32, 33, 34, 36, 40, 38, 41,
    ]
    static let intraCBPMonochrome: [UInt8] = [15, 0, 7, 11, 13, 14, 3, 5, 10, 12, 1, 2, 4, 8, 6, 9]

    /// Raster 4x4 index (x4 + 4 * y4) of luma4x4BlkIdx (6.4.3).
    static let blockRaster: [Int] = [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]
}
