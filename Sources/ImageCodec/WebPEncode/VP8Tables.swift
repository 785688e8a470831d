/// Constant tables of the VP8 key-frame bitstream (RFC 6386) as the encoder reads them: scan
/// order, bands and token categories here; quantiser steps and probabilities from the
/// decoder's `WebPTables`, so each constant is written once. Data only.
enum VP8Tables {
    /// Zigzag scan: token position n codes the coefficient at natural (row-major) index
    /// `zigzag[n]` of a 4×4 block (RFC 6386 §13).
    static let zigzag: [Int] = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15]

    /// Band of token position n (0...16; 16 serves the look-ahead after position 15), as a
    /// switch the optimiser turns into a small constant table (no array bounds checks).
    @inline(__always)
    static func band(_ n: Int) -> Int {
        switch n {
        case 0, 16: return 0
        case 1: return 1
        case 2: return 2
        case 3: return 3
        case 5: return 4
        case 6: return 5
        case 15: return 7
        default: return 6
        }
    }

    /// DC and AC quantiser steps for index 0...127 (RFC 6386 §14.1): the decoder's tables, as
    /// `Int` for the encoder's arithmetic.
    static let dcStep: [Int] = WebPTables.dcQuant.map(Int.init)
    static let acStep: [Int] = WebPTables.acQuant.map(Int.init)

    /// Fixed probabilities of the extra bits of DCT_CAT1...DCT_CAT6 (RFC 6386 §13.2), and the
    /// smallest magnitude each category codes.
    static let categoryProbabilities: [[Int]] = [
        [159], [165, 145], [173, 148, 140], [176, 155, 140, 135], [180, 157, 141, 134, 130],
        [254, 254, 243, 230, 196, 177, 153, 140, 133, 130, 129],
    ]
    static let categoryBase: [Int] = [5, 7, 11, 19, 35, 67]

    /// Key-frame intra 4×4 mode probabilities, the default coefficient probabilities and their
    /// update probabilities (RFC 6386 §11.5, §13.4, §13.5): the same constants the decoder reads,
    /// kept once in `WebPTables` (modes in `IntraMode4` order, which is the RFC's).
    static var subblockModeProbabilities: [UInt8] { WebPTables.subblockModeProbabilities }
    static var defaultCoefficientProbabilities: [UInt8] { WebPTables.defaultCoefficientProbabilities }
    static var coefficientUpdateProbabilities: [UInt8] { WebPTables.coefficientUpdateProbabilities }
}

/// The 16×16 (and chroma) modes in libwebp's numbering, the decoder's `VP8Mode`, shared with
/// the 4×4 modes' first four (DC, TM, VE, HE) so that a 16×16 macroblock's mode can stand as
/// its sub-blocks' context.
enum IntraMode16: Int {
    case dc = 0, tm = 1, v = 2, h = 3
}
