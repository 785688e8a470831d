import Foundation
import ImageCodec
#if canImport(Glibc)
import Glibc
#endif

// In-process timing and the PPM files the reference tools read and write, shared by the
// encode sections.

/// Median wall time and median thread CPU time of `body`, after one warm-up call.
func medianSeconds(runs: Int, _ body: () -> Void) -> (wall: Double, cpu: Double) {
    body()
    var wall: [Double] = [], cpu: [Double] = []
    for _ in 0..<max(runs, 1) {
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = threadCPUSeconds()
        body()
        cpu.append(threadCPUSeconds() - cpuStart)
        wall.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    wall.sort()
    cpu.sort()
    return (wall[wall.count / 2], cpu[cpu.count / 2])
}

/// CPU seconds of the calling thread so far.
func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// User + system CPU seconds of the child processes `body` waits for.
func childCPUSeconds(_ body: () -> Void) -> Double {
    func total() -> Double {
        var u = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }
    let before = total()
    body()
    return total() - before
}

/// Writes `bitmap` as binary PPM (P6, maxval 255), dropping alpha.
func writePPM(_ bitmap: Bitmap, to path: String) -> Bool {
    let rgb = bitmap.converted(to: .rgb)
    let header = Data("P6\n\(rgb.width) \(rgb.height)\n255\n".utf8)
    return FileManager.default.createFile(atPath: path, contents: header + Data(rgb.pixels))
}

/// Binary PPM (P6, maxval 255); `#` comments in the header (vips writes one) are skipped.
func readPPM(_ path: String) -> Bitmap? {
    guard let data = FileManager.default.contents(atPath: path), data.starts(with: Data("P6".utf8)) else { return nil }
    var fields: [Int] = []
    var pos = 2, current = -1
    while fields.count < 3 && pos < data.count {
        let c = data[pos]
        if c == 35 && current < 0 { // '#': skip to the end of the line
            while pos < data.count && data[pos] != 10 { pos += 1 }
        } else if c >= 48 && c <= 57 {
            current = (current < 0 ? 0 : current * 10) + Int(c - 48)
        } else if current >= 0 {
            fields.append(current)
            current = -1
        }
        pos += 1
    }
    guard fields.count == 3, fields[2] == 255 else { return nil }
    let count = fields[0] * fields[1] * 3
    guard data.count - pos >= count else { return nil }
    return try? Bitmap(width: fields[0], height: fields[1], layout: .rgb, pixels: [UInt8](data[pos..<(pos + count)]))
}
