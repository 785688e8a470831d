/// A whole-buffer Deflate decoder (RFC 1951), bare or in a zlib wrapper (RFC 1950), for
/// callers that hold the whole compressed block and know the output size up front (a TIFF
/// strip or tile). Written for speed in the manner of libdeflate: one pass, no sliding window
/// (matches copy from the output itself), a 64-bit bit buffer refilled a word at a time, and
/// one-lookup decode tables (`InflateTables`, `InflateBlock`).
///
/// It accepts and refuses exactly what zlib's `inflate` does, and stops where zlib stops:
/// output is bounded by `capacity` (a stream that wants more ends in `.outputFull` with the
/// output full), input that runs out ends in `.truncated` with every complete symbol written,
/// and every malformed stream is a typed `InflateError`. It never reads past the input or
/// writes past `capacity`.
public enum Inflate {
    /// Inflates the zlib stream in `input` into `out[0..<capacity]`; returns the bytes written.
    /// `checkAdler: false` skips the Adler-32 comparison (the trailer must still be present).
    public static func zlib(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                            capacity: Int, checkAdler: Bool = true) throws(InflateError) -> Int {
        try run(input, into: out, capacity: capacity, zlib: true, checkAdler: checkAdler)
    }

    /// Inflates the bare Deflate stream in `input` into `out[0..<capacity]`; returns the bytes
    /// written.
    public static func raw(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                           capacity: Int) throws(InflateError) -> Int {
        try run(input, into: out, capacity: capacity, zlib: false, checkAdler: false)
    }

    private static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private static func run(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, capacity: Int,
                            zlib: Bool, checkAdler: Bool) throws(InflateError) -> Int {
        guard let start = input.baseAddress, input.count > 0 else { throw .truncated(produced: 0) }
        var bits = InflateBits(start, count: input.count)
        if zlib { try readZlibHeader(&bits) }

        let tableCount = InflateTables.litlenCapacity + InflateTables.distanceCapacity + InflateTables.precodeCapacity
        let tables = UnsafeMutablePointer<UInt32>.allocate(capacity: tableCount)
        let lengths = UnsafeMutablePointer<UInt8>.allocate(capacity: 320)
        defer { tables.deallocate(); lengths.deallocate() }
        let litlen = tables, distance = tables + InflateTables.litlenCapacity
        let precode = distance + InflateTables.distanceCapacity

        var block = InflateBlock(outStart: out, outEnd: out + max(0, capacity), litlen: litlen, distance: distance)
        var fixedLoaded = false
        var final = false
        repeat {
            let header = try bits.take(3, produced: block.produced)
            final = header & 1 != 0
            switch header >> 1 {
            case 0:
                try block.stored(&bits)
                continue
            case 1:
                if !fixedLoaded {
                    try loadFixed(lengths, litlen: litlen, distance: distance)
                    fixedLoaded = true
                }
            case 2:
                try readDynamic(&bits, lengths: lengths, precode: precode, litlen: litlen, distance: distance,
                                produced: block.produced)
                fixedLoaded = false
            default:
                throw .badBlockType
            }
            try block.decodeSymbols(&bits)
        } while !final

        let produced = block.produced
        if zlib {
            bits.alignToByte()
            var stored: UInt32 = 0
            for _ in 0..<4 { stored = stored << 8 | UInt32(try bits.take(8, produced: produced)) }
            if checkAdler && stored != Adler32.checksum(out, count: produced) { throw .checksumMismatch }
        }
        return produced
    }

    /// CMF and FLG: check bits, method 8, window ≤ 32 KiB, no preset dictionary (zlib reads
    /// the dictionary id before refusing, so a cut-off one is `.truncated` there too).
    private static func readZlibHeader(_ bits: inout InflateBits) throws(InflateError) {
        let cmf = try bits.take(8, produced: 0), flg = try bits.take(8, produced: 0)
        guard (cmf << 8 | flg) % 31 == 0, cmf & 15 == 8, cmf >> 4 <= 7 else { throw .badHeader }
        if flg & 0x20 != 0 {
            _ = try bits.take(32, produced: 0)
            throw .needsDictionary
        }
    }

    /// The fixed code of RFC 1951 §3.2.6, including the unusable 286, 287, 30 and 31.
    private static func loadFixed(_ lengths: UnsafeMutablePointer<UInt8>, litlen: UnsafeMutablePointer<UInt32>,
                                  distance: UnsafeMutablePointer<UInt32>) throws(InflateError) {
        lengths.initialize(repeating: 8, count: 144)
        (lengths + 144).initialize(repeating: 9, count: 112)
        (lengths + 256).initialize(repeating: 7, count: 24)
        (lengths + 280).initialize(repeating: 8, count: 8)
        (lengths + 288).initialize(repeating: 5, count: 32)
        try InflateTables.build(.litlen, lengths: lengths, count: 288, table: litlen,
                                tableBits: InflateTables.litlenBits, capacity: InflateTables.litlenCapacity)
        try InflateTables.build(.distance, lengths: lengths + 288, count: 32, table: distance,
                                tableBits: InflateTables.distanceBits, capacity: InflateTables.distanceCapacity)
    }

    /// A dynamic block's header (RFC 1951 §3.2.7): counts, the code-length code, then the
    /// literal/length and distance code lengths, checked in zlib's order.
    private static func readDynamic(_ bits: inout InflateBits, lengths: UnsafeMutablePointer<UInt8>,
                                    precode: UnsafeMutablePointer<UInt32>, litlen: UnsafeMutablePointer<UInt32>,
                                    distance: UnsafeMutablePointer<UInt32>, produced: Int) throws(InflateError) {
        let counts = try bits.take(14, produced: produced)
        let litlenCount = counts & 31 &+ 257, distanceCount = counts >> 5 & 31 &+ 1, precodeCount = counts >> 10 &+ 4
        guard litlenCount <= 286, distanceCount <= 30 else { throw .badCodeLengths }
        lengths.initialize(repeating: 0, count: 19)
        for i in 0..<precodeCount { lengths[codeLengthOrder[i]] = UInt8(try bits.take(3, produced: produced)) }
        try InflateTables.build(.precode, lengths: lengths, count: 19, table: precode,
                                tableBits: InflateTables.precodeBits, capacity: InflateTables.precodeCapacity)

        let total = litlenCount &+ distanceCount
        var have = 0
        while have < total {
            bits.fill()
            let entry = precode[Int(truncatingIfNeeded: bits.buf) & (InflateTables.precodeCapacity &- 1)]
            let codeLength = Int(entry >> 8 & 15), symbol = Int(entry >> 16 & 0x7FFF)
            if symbol < 16 {
                bits.drop(codeLength)
                if bits.overrun { throw .truncated(produced: produced) }
                lengths[have] = UInt8(truncatingIfNeeded: symbol)
                have &+= 1
                continue
            }
            let extraBits = symbol == 16 ? 2 : symbol == 17 ? 3 : 7
            let extra = Int(truncatingIfNeeded: bits.buf &>> UInt64(codeLength)) & (1 << extraBits &- 1)
            bits.drop(codeLength &+ extraBits)
            if bits.overrun { throw .truncated(produced: produced) }
            let value: UInt8, repeats: Int
            switch symbol {
            case 16:
                guard have > 0 else { throw .badRepeat }
                value = lengths[have &- 1]
                repeats = 3 &+ extra
            case 17: value = 0; repeats = 3 &+ extra
            default: value = 0; repeats = 11 &+ extra
            }
            guard have &+ repeats <= total else { throw .badRepeat }
            (lengths + have).update(repeating: value, count: repeats)
            have &+= repeats
        }
        guard lengths[256] != 0 else { throw .badCodeLengths }
        try InflateTables.build(.litlen, lengths: lengths, count: litlenCount, table: litlen,
                                tableBits: InflateTables.litlenBits, capacity: InflateTables.litlenCapacity)
        try InflateTables.build(.distance, lengths: lengths + litlenCount, count: distanceCount, table: distance,
                                tableBits: InflateTables.distanceBits, capacity: InflateTables.distanceCapacity)
    }
}
