/// The picture being decoded: its sample planes (whole macroblocks, 8-bit) and what each
/// macroblock leaves for its neighbours' parsing, prediction and the deblocking filter.
/// Everything is allocated once, sized from the SPS after the limits accepted it.
final class H264Frame {
    let sps: H264SequenceParameterSet
    let widthInMbs: Int
    let heightInMbs: Int
    let mbCount: Int
    let hasChroma: Bool
    let lumaStride: Int
    let chromaStride: Int
    let luma: UnsafeMutablePointer<UInt8>
    /// Cb then Cr, `chromaStride * heightInMbs * 8` each (unused for 4:0:0).
    let cb: UnsafeMutablePointer<UInt8>
    let cr: UnsafeMutablePointer<UInt8>

    /// Slice index of each macroblock, -1 until decoded.
    let mbSlice: UnsafeMutablePointer<Int32>
    /// `H264MbKind` raw values.
    let mbKind: UnsafeMutablePointer<UInt8>
    /// QP_Y (0 for I_PCM, whose filtering uses qP 0).
    let mbQP: UnsafeMutablePointer<UInt8>
    /// Bits 0-3 luma 8x8 coded, 4-5 chroma (0, 1, 2), 8 luma DC coded, 9/10 Cb/Cr DC coded.
    let mbCBP: UnsafeMutablePointer<UInt16>
    let mbChromaMode: UnsafeMutablePointer<UInt8>
    /// Intra 4x4/8x8 prediction modes, 16 per macroblock in raster order of 4x4 blocks.
    let modes: UnsafeMutablePointer<UInt8>
    /// Coefficient counts: 16 luma 4x4 blocks (raster), then 4 Cb and 4 Cr, per macroblock.
    let counts: UnsafeMutablePointer<UInt8>

    /// Per slice: deblocking idc, alpha and beta offsets, Cb and Cr QP offsets.
    @exclusivity(unchecked) var sliceFilters: [H264SliceFilter] = []

    init(sps: H264SequenceParameterSet) {
        self.sps = sps
        widthInMbs = sps.widthInMbs
        heightInMbs = sps.heightInMbs
        mbCount = widthInMbs * heightInMbs
        hasChroma = sps.chromaFormatIdc != 0
        lumaStride = widthInMbs * 16
        chromaStride = widthInMbs * 8
        let lumaCount = lumaStride * heightInMbs * 16
        let chromaCount = hasChroma ? chromaStride * heightInMbs * 8 : 0
        luma = .allocate(capacity: lumaCount)
        luma.initialize(repeating: 0, count: lumaCount)
        cb = .allocate(capacity: max(chromaCount, 1))
        cb.initialize(repeating: 0, count: max(chromaCount, 1))
        cr = .allocate(capacity: max(chromaCount, 1))
        cr.initialize(repeating: 0, count: max(chromaCount, 1))
        mbSlice = .allocate(capacity: mbCount)
        mbSlice.initialize(repeating: -1, count: mbCount)
        mbKind = .allocate(capacity: mbCount)
        mbKind.initialize(repeating: 0, count: mbCount)
        mbQP = .allocate(capacity: mbCount)
        mbQP.initialize(repeating: 0, count: mbCount)
        mbCBP = .allocate(capacity: mbCount)
        mbCBP.initialize(repeating: 0, count: mbCount)
        mbChromaMode = .allocate(capacity: mbCount)
        mbChromaMode.initialize(repeating: 0, count: mbCount)
        modes = .allocate(capacity: mbCount * 16)
        modes.initialize(repeating: 2, count: mbCount * 16)
        counts = .allocate(capacity: mbCount * 24)
        counts.initialize(repeating: 0, count: mbCount * 24)
    }

    deinit {
        luma.deallocate()
        cb.deallocate()
        cr.deallocate()
        mbSlice.deallocate()
        mbKind.deallocate()
        mbQP.deallocate()
        mbCBP.deallocate()
        mbChromaMode.deallocate()
        modes.deallocate()
        counts.deallocate()
    }

    /// Bytes the frame allocates for `sps`, for the memory estimate.
    static func bufferBytes(_ sps: H264SequenceParameterSet) -> Int? {
        let mbs = DecodeMemoryEstimate.product([sps.widthInMbs, sps.heightInMbs])
        guard let mbs else { return nil }
        let samples = DecodeMemoryEstimate.product([mbs, sps.chromaFormatIdc == 0 ? 256 : 384])
        return DecodeMemoryEstimate.sum([samples, DecodeMemoryEstimate.product([mbs, 48])])
    }

    /// Bytes of the cropped UInt16 output planes.
    static func outputBytes(_ sps: H264SequenceParameterSet) -> Int? {
        DecodeMemoryEstimate.product([sps.croppedWidth, sps.croppedHeight, sps.chromaFormatIdc == 0 ? 2 : 3])
    }

    /// The cropped planes as `HEVCPlane`s (UInt16 samples).
    func croppedPlanes() -> [HEVCPlane] {
        var planes: [HEVCPlane] = []
        let w = sps.croppedWidth, h = sps.croppedHeight
        planes.append(Self.crop(luma, stride: lumaStride, left: sps.cropLeft, top: sps.cropTop, width: w, height: h))
        if hasChroma {
            let cw = (w + 1) / 2, ch = (h + 1) / 2
            for plane in [cb, cr] {
                planes.append(Self.crop(plane, stride: chromaStride, left: sps.cropLeft / 2, top: sps.cropTop / 2,
                                        width: cw, height: ch))
            }
        }
        return planes
    }

    private static func crop(_ source: UnsafeMutablePointer<UInt8>, stride: Int, left: Int, top: Int,
                             width: Int, height: Int) -> HEVCPlane {
        let samples = [UInt16](unsafeUninitializedCapacity: width * height) { out, done in
            for y in 0..<height {
                let row = source + (top + y) * stride + left
                let o = y * width
                for x in 0..<width { out[o &+ x] = UInt16(row[x]) }
            }
            done = width * height
        }
        return HEVCPlane(width: width, height: height, samples: samples)
    }
}

/// What the deblocking filter needs of a slice (7.4.3).
struct H264SliceFilter {
    var disable: Int
    var alphaOffset: Int
    var betaOffset: Int
    var cbQPOffset: Int
    var crQPOffset: Int
}

/// Macroblock prediction kinds of I slices.
enum H264MbKind {
    static let intra4x4: UInt8 = 0, intra8x8: UInt8 = 1, intra16x16: UInt8 = 2, pcm: UInt8 = 3
}
