import Foundation
import Testing
@testable import ImageCodec

/// Decode time of an H.264 stream named by `H264_BENCH` (skipped without it): the fastest and
/// median of 15 decodes (or `H264_BENCH_RUNS`) in this process, to compare with ffmpeg (docs/h264.md).
@Suite struct H264SpeedTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["H264_BENCH"] != nil))
    func decodeTime() throws {
        let paths = ProcessInfo.processInfo.environment["H264_BENCH"]!.split(separator: ",")
        for path in paths {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: String(path))))
            var times: [Double] = []
            let runs = Int(ProcessInfo.processInfo.environment["H264_BENCH_RUNS"] ?? "") ?? 15
            for _ in 0..<runs {
                let start = ContinuousClock.now
                _ = try H264Decoder.decodeAnnexB(bytes)
                let d = ContinuousClock.now - start
                times.append(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
            }
            times.sort()
            print("H264_BENCH \(path): min \(times[0]) ms, median \(times[times.count / 2]) ms")
        }
    }
}
