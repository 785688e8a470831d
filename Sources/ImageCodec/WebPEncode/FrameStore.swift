/// What the mode decision leaves for the bitstream writer: the source and reconstructed
/// planes, and per macroblock its segment, modes, skip flag and quantised levels.
///
/// Levels: 400 per macroblock, 25 blocks of 16 in scan order: luma 0...15 (raster order),
/// U 16...19, V 20...23, Y2 24 (zero unless the luma mode is 16×16). Modes: `yMode` 0...3 =
/// `IntraMode16`, 4 = 4×4 with the sub-block modes in `subModes` (16 per macroblock; a 16×16
/// macroblock repeats its mode there, which is the context the decoder gives its neighbours).
struct FrameStore: ~Copyable {
    let mbw: Int, mbh: Int
    let source: YUVPlanes
    let recon: YUVPlanes
    let levels: UnsafeMutablePointer<Int16>
    let yMode: UnsafeMutablePointer<UInt8>
    let uvMode: UnsafeMutablePointer<UInt8>
    let segment: UnsafeMutablePointer<UInt8>
    let skip: UnsafeMutablePointer<UInt8>
    let subModes: UnsafeMutablePointer<UInt8>

    /// The caller has checked that the macroblock counts are in VP8's range, so the byte
    /// counts (≤ 1024² macroblocks × 800 bytes) cannot overflow.
    init(mbw: Int, mbh: Int) {
        self.mbw = mbw
        self.mbh = mbh
        let count = mbw * mbh
        source = YUVPlanes(macroblocksWide: mbw, high: mbh)
        recon = YUVPlanes(macroblocksWide: mbw, high: mbh)
        levels = .allocate(capacity: count * 400)
        yMode = .allocate(capacity: count)
        uvMode = .allocate(capacity: count)
        segment = .allocate(capacity: count)
        segment.initialize(repeating: 0, count: count)
        skip = .allocate(capacity: count)
        subModes = .allocate(capacity: count * 16)
    }

    deinit {
        levels.deallocate(); yMode.deallocate(); uvMode.deallocate()
        segment.deallocate(); skip.deallocate(); subModes.deallocate()
    }
}
