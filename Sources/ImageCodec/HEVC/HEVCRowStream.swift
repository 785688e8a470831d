/// Hands out a picture decoded in a window of two CTB rows (`HEVCFrame.windowed`) as bands of
/// finished lines: deblocked, SAO'd, identical to the same lines of the whole-picture decode.
///
/// When the slice decoder starts CTB row r + 1, row r is reconstructed and row r + 1 needs only
/// row r (intra prediction reads the line above and the column to the left). The window then
/// holds rows r - 1 and r; both are copied and filtered as if they were the picture, and the
/// lines that copy gets right are handed out. Deblocking changes at most three lines on either
/// side of a horizontal edge (deciding on four) and SAO reads one line beyond each sample, so:
/// - the top edge of the copy (line (r - 1)·C, never filtered there) spoils its first four lines
///   (three deblocked lines, plus the line SAO computes from the third),
/// - the edge at (r + 1)·C below the copy, not decoded yet, spoils its last four lines,
/// leaving lines (r - 1)·C + 4 ..< (r + 1)·C - 4 right. Each band hands out
/// r·C - 4 ..< (r + 1)·C - 4 (from 0 for the first row, to the picture's end for the last),
/// which needs C ≥ 8 (CTBs are 16 to 64) and keeps 4:2:0 bands on even lines. Chroma is
/// filtered on its own 8-sample grid with one sample changed and two read per side, inside the
/// same bounds. Each CTB row is thus filtered twice (once as the lower, once as the upper row of
/// a copy); the copies are two CTB rows of samples.
final class HEVCRowStream {
    let frame: HEVCFrame
    let loopFilters: Bool
    let sink: (HEVCRowBand) throws -> Void
    /// The CTB row being decoded: the window's lower row.
    private(set) var decodingRow = 0

    init(frame: HEVCFrame, loopFilters: Bool, sink: @escaping (HEVCRowBand) throws -> Void) {
        self.frame = frame
        self.loopFilters = loopFilters
        self.sink = sink
    }

    /// The slice decoder reaches CTB row `row`: finishes the rows before it. Rows are only
    /// ever reached in raster order (one tile column); a slice that goes back is corrupt, and
    /// a row left incomplete is missing slice data.
    func start(row: Int) throws {
        guard row >= decodingRow else {
            throw ImageCodecError(.corrupt, "HEVC slice goes back to CTB row \(row) after row \(decodingRow)")
        }
        while decodingRow < row { try finishRow() }
    }

    /// Finishes every row left once the slices have ended.
    func finish() throws {
        while decodingRow < frame.layout.heightInCtbs { try finishRow() }
    }

    private func finishRow() throws {
        let r = decodingRow
        try HEVCDecoder.checkDecoded(frame, ctbRows: r..<(r + 1))
        let c = frame.sps.ctbSize, height = frame.height
        let last = r == frame.layout.heightInCtbs - 1
        let lines = max(0, (r - 1) * c)..<min(height, (r + 1) * c)
        var planes = frame.planeArrays(lines: lines)
        if loopFilters && HEVCDecoder.loopFiltersAvailable {
            HEVCDecoder.applyLoopFilters(&planes, map: frame.filterMap(lines: lines), sps: frame.sps)
        }
        let rows = (r == 0 ? 0 : r * c - 4)..<(last ? height : (r + 1) * c - 4)
        try sink(HEVCRowBand(sps: frame.sps, planes: planes, top: lines.lowerBound, rows: rows))
        decodingRow += 1
        if !last { frame.moveWindow(to: r * c) }
    }
}

/// Finished lines of a picture, as `HEVCDecoder.decodeRows` hands them out.
struct HEVCRowBand {
    /// Uncropped lines `top ..< top + planes[0].height` of the decoded picture (chroma at its
    /// subsampled size), as `HEVCPicture` planes: the picture's format, bit depths and signal.
    /// Only `rows` of them are final; the others are handed out again, right, in a later band.
    let picture: HEVCPicture
    let top: Int
    /// Uncropped luma lines of this band that are final; the bands' `rows` tile the picture.
    let rows: Range<Int>
    /// The conformance window: the shown picture is `croppedWidth` × `croppedHeight` from
    /// (`cropLeft`, `cropTop`) of the decoded one.
    let cropLeft: Int
    let cropTop: Int
    let croppedWidth: Int
    let croppedHeight: Int

    init(sps: HEVCSequenceParameterSet, planes: [HEVCPlane], top: Int, rows: Range<Int>) {
        picture = HEVCPicture(width: sps.width, height: planes[0].height, chromaFormat: sps.chromaFormat,
                              bitDepthLuma: sps.bitDepthLuma, bitDepthChroma: sps.bitDepthChroma, planes: planes,
                              videoSignal: sps.videoSignal)
        self.top = top
        self.rows = rows
        cropLeft = sps.cropLeft
        cropTop = sps.cropTop
        croppedWidth = sps.croppedWidth
        croppedHeight = sps.croppedHeight
    }
}
