/// Premultiplied alpha for resampling: colour is weighted by coverage before filtering, so a
/// transparent pixel's (invisible) colour cannot bleed into its neighbours, then divided out.
///
/// 8-bit in both directions with rounding (Pillow works the same way, with truncation on the
/// way back); colour precision drops where alpha is low, where it is hardest to see.
enum AlphaPremultiply {
    /// In place: c ← round(c · a / 255) for every colour sample; alpha is the last channel.
    static func premultiply(_ p: UnsafeMutablePointer<UInt8>, pixels: Int, channels: Int) {
        var q = p
        let colours = channels &- 1
        for _ in 0..<pixels {
            let a = UInt32(q[colours])
            if a != 255 {
                for k in 0..<colours {
                    // round(c·a/255) exactly, without a division.
                    let t = UInt32(q[k]) &* a &+ 128
                    q[k] = UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
                }
            }
            q += channels
        }
    }

    /// In place: c ← round(c · 255 / a), clamped; a fully transparent pixel becomes 0.
    static func unpremultiply(_ p: UnsafeMutablePointer<UInt8>, pixels: Int, channels: Int) {
        var q = p
        let colours = channels &- 1
        for _ in 0..<pixels {
            let a = UInt32(q[colours])
            if a == 0 {
                for k in 0..<colours { q[k] = 0 }
            } else if a != 255 {
                for k in 0..<colours {
                    let v = (UInt32(q[k]) &* 255 &+ a / 2) / a
                    q[k] = UInt8(min(v, 255))
                }
            }
            q += channels
        }
    }
}
