/// Turns one stored block (strip or tile) into its raw sample bytes: uncompressed, PackBits,
/// LZW (TIFF's MSB-first flavour with early code-width change) or Deflate.
///
/// Output is bounded by the block size the header promises: data that would produce more is
/// cut there, data that produces less leaves the rest zero (libtiff's behaviour: it warns and
/// keeps the rows it got) and reports it, so a short strip loses its tail, not the image.
/// Every loop consumes input or produces bounded output, so a hostile block ends quickly.
enum TIFFDecompressor {
    /// Decodes `input` into `out` (`capacity` bytes); returns the bytes produced.
    static func decompress(_ compression: Int, _ input: UnsafeBufferPointer<UInt8>,
                           into out: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int {
        switch compression {
        case 1:
            let n = min(input.count, capacity)
            if n > 0, let base = input.baseAddress { out.update(from: base, count: n) }
            return n
        case 32773: return try packBits(input, into: out, capacity: capacity)
        case 5: return try TIFFLZW.decode(input, into: out, capacity: capacity)
        case 8, 32946: return try inflate(input, into: out, capacity: capacity)
        default: throw ImageCodecError(.unsupported, "TIFF compression \(compression)")
        }
    }

    /// PackBits (Apple's run-length code): a header byte n, then n + 1 literals (n ≥ 0) or
    /// one byte repeated 1 − n times (n < 0, −128 is a no-op).
    static func packBits(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int {
        var i = 0, o = 0
        let n = input.count
        while i < n && o < capacity {
            let h = Int(Int8(bitPattern: input[i]))
            i &+= 1
            if h >= 0 {
                let count = min(h &+ 1, n &- i, capacity &- o)
                for k in 0..<count { out[o &+ k] = input[i &+ k] }
                i &+= h &+ 1
                o &+= count
            } else if h != -128 {
                guard i < n else { break }
                let count = min(1 &- h, capacity &- o)
                (out + o).initialize(repeating: input[i], count: count)
                i &+= 1
                o &+= count
            }
        }
        return o
    }

    /// A zlib stream (Adobe Deflate, and the older 32946) inflated straight into `out` by our
    /// own `Inflate`, matching libtiff with libdeflate (Debian's build): the Adler-32 is checked
    /// when the stream ends inside the block, a stream that would overflow the block is cut at
    /// the block's end without error (libtiff accepts it: some writers put a whole strip's rows
    /// in a short last strip), and data that runs out keeps what it produced.
    static func inflate(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int {
        guard input.count > 0, capacity > 0 else { return 0 }
        do {
            return try Inflate.zlib(input, into: out, capacity: capacity)
        } catch {
            switch error {
            case .outputFull: return capacity
            case .truncated(let produced): return produced
            default: throw ImageCodecError(.corrupt, "TIFF Deflate block: \(error)")
            }
        }
    }
}
