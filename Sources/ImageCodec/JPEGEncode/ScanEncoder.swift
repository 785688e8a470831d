/// Entropy-codes the blocks of our single sequential scan, MCU by MCU, with one DC predictor
/// per component; and chooses the Huffman tables for it (standard or optimised).
///
/// Tables are listed as cjpeg emits its DHT segments: DC 0, AC 0, then (colour) DC 1, AC 1.
struct ScanEncoder: ~Copyable {
    /// Component index of each block position within an MCU (4:2:0: Y Y Y Y Cb Cr).
    private let blockComponents: [Int]
    /// Table index (0 luma, 1 chroma) per component.
    private let componentTables: [Int]
    /// Per table index (0 luma, 1 chroma), 1024 entries: `HuffmanCodes.packed` for DC (256),
    /// then AC (256), then `HuffmanEncoder.smallACTable` for that AC table (512).
    private let codes: UnsafeMutablePointer<UInt32>
    /// `QuantTables.zigzag`, owned here so the hot loop reads it through a plain pointer.
    private let zigzag: UnsafeMutablePointer<Int>
    private var predictors: [Int32]

    /// The cjpeg default: the Annex K tables.
    static func standardTables(_ layout: FrameLayout) -> [HuffmanSpec] {
        layout.isGray ? [.standardDCLuma, .standardACLuma]
            : [.standardDCLuma, .standardACLuma, .standardDCChroma, .standardACChroma]
    }

    /// Tables built for `blockCount` blocks at `blocks` (whole MCUs in scan order), as
    /// `cjpeg -optimize` builds them from its first pass.
    static func optimalTables(_ layout: FrameLayout, blocks: UnsafePointer<Int16>, masks: UnsafePointer<UInt64>,
                              blockCount: Int) -> [HuffmanSpec] {
        let tableCount = layout.isGray ? 2 : 4
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 257 * tableCount)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0, count: 257 * tableCount)
        let blockComponents = ScanEncoder.blockComponents(layout)
        let componentTables = layout.components.map(\.table)
        var predictors = [Int32](repeating: 0, count: layout.components.count)
        QuantTables.zigzag.withUnsafeBufferPointer { zigzag in
            var block = blocks
            var position = 0
            for i in 0..<blockCount {
                let c = blockComponents[position]
                let table = counts + 514 * componentTables[c]
                HuffmanEncoder.count(block, nonZero: masks[i], zigzag: zigzag.baseAddress!, previousDC: &predictors[c],
                                     dc: table, ac: table + 257)
                block += 64
                position = position + 1 == blockComponents.count ? 0 : position + 1
            }
        }
        return (0..<tableCount).map { t in
            HuffmanSpec.optimal(counts: Array(UnsafeBufferPointer(start: counts + 257 * t, count: 257)))
        }
    }

    private static func blockComponents(_ layout: FrameLayout) -> [Int] {
        layout.components.enumerated().flatMap { i, c in Array(repeating: i, count: c.h * c.v) }
    }

    /// Fails only on an invalid table, which would be our own bug.
    init(_ layout: FrameLayout, tables: [HuffmanSpec]) throws {
        let packed = try tables.map { try HuffmanCodes($0).packed }
        blockComponents = ScanEncoder.blockComponents(layout)
        componentTables = layout.components.map(\.table)
        predictors = [Int32](repeating: 0, count: layout.components.count)
        zigzag = .allocate(capacity: 64)
        zigzag.initialize(from: QuantTables.zigzag, count: 64)
        codes = .allocate(capacity: 2048)
        codes.initialize(repeating: 0, count: 2048)
        for (i, table) in packed.enumerated() { (codes + 1024 * (i / 2) + 256 * (i % 2)).update(from: table, count: 256) }
        for t in 0..<(packed.count / 2) {
            let base = codes + 1024 * t
            (base + 512).update(from: HuffmanEncoder.smallACTable(base + 256), count: 512)
        }
    }

    deinit {
        codes.deallocate()
        zigzag.deallocate()
    }

    /// DHT segments for `tables`, in order.
    static func tableSegments(_ tables: [HuffmanSpec]) -> [UInt8] {
        tables.enumerated().flatMap { i, spec in
            JPEGMarkerWriter.huffmanTable(tableClass: i % 2, id: i / 2, spec)
        }
    }

    /// Writes `blockCount` blocks (whole MCUs, continuing where the last call stopped).
    mutating func encode(_ blocks: UnsafePointer<Int16>, masks: UnsafePointer<UInt64>, blockCount: Int,
                         writer: inout BitWriter) {
        let perMCU = blockComponents.count
        // Room is reserved per chunk of MCUs, so the inner loop never checks capacity.
        let chunkBlocks = max(1, 1024 / perMCU) * perMCU
        blockComponents.withUnsafeBufferPointer { components in
            componentTables.withUnsafeBufferPointer { tables in
                predictors.withUnsafeMutableBufferPointer { predictors in
                    var block = blocks
                    var mask = masks
                    var done = 0
                    while done < blockCount {
                        let chunk = min(chunkBlocks, blockCount &- done)
                        writer.reserve(chunk &* BitWriter.maxBytesPerBlock)
                        var sink = writer.sink()
                        var left = chunk
                        while left > 0 {
                            for b in 0..<perMCU {
                                let c = components[b]
                                let table = codes + 1024 &* tables[c]
                                HuffmanEncoder.encode(block, nonZero: mask.pointee, zigzag: zigzag, previousDC: &predictors[c], dc: table,
                                                      ac: table + 256, acSmall: table + 512, writer: &sink)
                                block += 64
                                mask += 1
                            }
                            left &-= perMCU
                        }
                        writer.absorb(sink)
                        done &+= chunk
                    }
                }
            }
        }
    }
}
