/// Loop-filter level per segment, as libwebp chooses it without its "autofilter" search
/// (src/enc/filter_enc.c, quant_enc.c `SetupFilterStrength`, `VP8AdjustFilterStrength`):
///
/// - initial: the AC step / 4 is the edge step to smooth; with sharpness 0 the smallest level
///   that filters a step d is d itself (libwebp's kLevelsFromDelta row 0), so
///   level = min(step/4, 63) · 5 · strength / (256 + β), where β (0...255) is the segment's
///   complexity rank; levels below 2 become 0 (no visible effect, saves decoding time).
/// - adjusted after coding: if a flat (DC-only) 16×16 macroblock left a DC step of e levels
///   between its 4×4 blocks, the level is raised to at least min(e · Y2 AC step / 8, 63).
enum LoopFilterLevel {
    static func initial(quantIndex: Int, beta: Int, strength: Int) -> Int {
        let step = VP8Tables.acStep[min(max(quantIndex, 0), 127)] >> 2
        let base = min(step, 63)
        let f = base * 5 * strength / (256 + beta)
        return f < 2 ? 0 : min(f, 63)
    }

    static func adjusted(_ level: Int, maxEdge: Int, y2ACStep: Int) -> Int {
        let delta = (maxEdge * y2ACStep) >> 3
        return max(level, min(delta, 63))
    }
}
