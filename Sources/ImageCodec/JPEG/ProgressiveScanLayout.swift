/// Where every scan of a progressive file starts and ends, and the tables each one uses, found
/// without decoding: the end of a scan's entropy data is the first marker in it that is not a
/// restart marker (the bit reader stops there, and nothing else in entropy data looks like a
/// marker). This is what lets `ProgressiveBandDecoder` run all scans side by side, one band at
/// a time, instead of keeping every block's coefficients until the last scan.
///
/// `init` gives nil, and the decoder keeps the whole-image store, whenever the file is not
/// plainly well-formed, so that damaged files keep libjpeg's exact behaviour without a second
/// implementation of it: the input ends before EOI, a scan ends at a reserved marker (below
/// 0xC0), a header between scans is bad or preceded by stray bytes, there are more scans than
/// `DecodeLimits.maxScans`, or inter-block smoothing would apply (it reads the DC values of
/// blocks two rows away; it applies only when some component's zigzag positions 0...9 are not
/// complete to the last bit, see `BlockSmoother`).
struct ProgressiveScanLayout {
    struct Entry {
        let scan: JPEGScanHeader
        /// The tables in force at its SOS.
        let tables: JPEGTables
        /// First byte of its entropy-coded data.
        let start: Int
        /// The marker that ends its data, and the position just after that marker's code.
        let endMarker: UInt8
        let end: Int
        /// What the whole-image decode reports while reading the markers between this scan and
        /// the next (stray bytes between two table segments).
        let followingWarnings: [String]
    }

    let entries: [Entry]
    /// The APPn metadata once every header is read (segments may follow the first scan).
    let metadata: JPEGMetadata

    init?(_ h: JPEGDecoder.Headers, limits: DecodeLimits) {
        guard h.frame.progressive else { return nil }
        var marker = h.marker
        var tables = h.tables
        var metadata = h.metadata
        var scan = h.firstScan
        var progression = ProgressionState(components: h.frame.components.count)
        var made: [Entry] = []
        guard let base = marker.data.baseAddress else { return nil }
        while true {
            progression.startScan(scan)
            let start = marker.pos
            guard let (code, end) = Self.endOfEntropyData(base, marker.data.count, from: start), code >= 0xC0 else { return nil }
            marker.pos = end
            let atSOS = tables
            var warnings: [String] = []
            var next: JPEGScanHeader?
            var current = code
            do {
                while current != 0xD9 {
                    if current == 0xDA {
                        next = try JPEGScanHeader(payload: try marker.segment(), frame: h.frame)
                        break
                    }
                    try JPEGDecoder.handleTableMarker(current, &marker, &tables, &metadata)
                    var skipped = 0
                    guard let m = marker.nextMarker(skipped: &skipped) else { return nil }
                    if skipped > 0 { warnings.append("corrupt JPEG data: \(skipped) extraneous bytes before marker 0x\(JPEGDecoder.hex(m))") }
                    current = m
                }
            } catch {
                return nil
            }
            made.append(Entry(scan: scan, tables: atSOS, start: start, endMarker: code, end: end, followingWarnings: warnings))
            guard let following = next else { break }
            guard made.count < limits.maxScans else { return nil }
            scan = following
        }
        for bits in progression.coefBits where bits[0...9].contains(where: { $0 != 0 }) { return nil }
        entries = made
        self.metadata = metadata
    }

    /// Which scans a decode must entropy-decode when the IDCT of component c reads only the
    /// zigzag positions in `kept[c]` (`CoefficientStore.Plane.keptMask`); the others are skipped
    /// whole (at 1/8 every AC scan: the 1×1 IDCT reads only the DC).
    ///
    /// An AC scan is needed when it can write a needed position. That is more than its band
    /// [Ss, Se]: with corrupt data a first scan's run can carry the position up to Se + 15 (past
    /// 63 it aliases 63) and a refinement's new value can land on Se + 1, as in libjpeg. A needed
    /// scan reads the masks of its band (refinement runs count zero positions, correction bits
    /// follow non-zero ones), so the earlier scans writing there are needed too: hence the walk
    /// from the last scan back, adding each needed scan's band to the component's needed set.
    /// DC scans are always needed. Smoothing decisions come from the scan headers, which the
    /// layout reads whether or not a scan is decoded.
    static func scansNeeded(_ scans: [JPEGScanHeader], kept: [UInt64]) -> [Bool] {
        var needed = kept
        var decode = [Bool](repeating: true, count: scans.count)
        for i in scans.indices.reversed() {
            let scan = scans[i]
            guard scan.ss > 0, let c = scan.components.first, c < needed.count else { continue }
            let reachEnd = min(63, scan.ah == 0 ? scan.se &+ 15 : scan.se &+ 1)
            if needed[c] & Self.positions(scan.ss, reachEnd) != 0 {
                needed[c] |= Self.positions(scan.ss, scan.se)
            } else {
                decode[i] = false
            }
        }
        return decode
    }

    /// Bits `low...high` (0 ≤ low ≤ high ≤ 63).
    static func positions(_ low: Int, _ high: Int) -> UInt64 {
        let top: UInt64 = high >= 63 ? .max : (UInt64(1) &<< UInt64(truncatingIfNeeded: high &+ 1)) &- 1
        return top & ~((UInt64(1) &<< UInt64(truncatingIfNeeded: low)) &- 1)
    }

    /// The first marker at or after `from` that is not RSTn, stuffing (FF 00) or fill (FF FF),
    /// as (code, position after the code); nil at the end of the input.
    static func endOfEntropyData(_ base: UnsafePointer<UInt8>, _ count: Int, from: Int) -> (UInt8, Int)? {
        var p = from
        while true {
            p = nextFF(base, count, from: p)
            while p < count && base[p] == 0xFF { p &+= 1 }
            guard p < count else { return nil }
            let code = base[p]
            p &+= 1
            if code != 0 && (code < 0xD0 || code > 0xD7) { return (code, p) }
        }
    }

    /// Index of the next 0xFF byte at or after `from` (`count` if none), eight bytes at a time:
    /// entropy data has about one FF in 256 bytes.
    static func nextFF(_ base: UnsafePointer<UInt8>, _ count: Int, from: Int) -> Int {
        var p = from
        let ones: UInt64 = 0x0101_0101_0101_0101
        while p &+ 8 <= count {
            // FF bytes become zero bytes; the lowest flagged byte is the first zero byte.
            let x = ~UInt64(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self))
            let zero = (x &- ones) & ~x & (ones &<< 7)
            if zero != 0 { return p &+ zero.trailingZeroBitCount &>> 3 }
            p &+= 8
        }
        while p < count && base[p] != 0xFF { p &+= 1 }
        return p
    }
}
