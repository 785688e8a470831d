import CZlib
import Foundation
import ImageCodec

/// Inflate throughput, ours (`Inflate.zlib`) against zlib's `inflate`, in process on the same
/// streams: the first photo's RGB pixels cut into 256×256 tiles, horizontal predictor applied
/// (what a tiled Deflate TIFF holds), each tile deflated by zlib at level 6 (tiffcp's default).
/// Megabytes of output per second of thread CPU, median of the runs.
enum InflateBench {
    static func run(_ context: BenchContext, photo: String?) {
        guard let photo, let data = FileManager.default.contents(atPath: photo),
              let image = try? ImageCodec.decode([UInt8](data)) else { print("\ninflate: no photo"); return }
        let bitmap = image.bitmap
        let side = 256, channels = bitmap.channels
        var tiles: [(stream: [UInt8], size: Int)] = []
        var tile = [UInt8](repeating: 0, count: side * side * channels)
        for ty in stride(from: 0, to: bitmap.height, by: side) {
            for tx in stride(from: 0, to: bitmap.width, by: side) {
                for y in 0..<side {
                    for x in 0..<side * channels {
                        let sy = min(ty + y, bitmap.height - 1), sx = min(tx * channels + x, bitmap.width * channels - 1)
                        tile[y * side * channels + x] = bitmap.pixels[sy * bitmap.rowBytes + sx]
                    }
                    for x in stride(from: side * channels - 1, through: channels, by: -1) {
                        tile[y * side * channels + x] &-= tile[y * side * channels + x - channels]
                    }
                }
                tiles.append((deflate(tile), tile.count))
            }
        }
        let outputBytes = tiles.reduce(0) { $0 + $1.size }
        let inputBytes = tiles.reduce(0) { $0 + $1.stream.count }
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: tile.count)
        defer { out.deallocate() }
        var failures = 0
        let ours = medianSeconds(runs: context.runs) {
            for t in tiles {
                let n = t.stream.withUnsafeBufferPointer { try? Inflate.zlib($0, into: out, capacity: t.size) }
                if n != t.size { failures += 1 }
            }
        }
        let zlib = medianSeconds(runs: context.runs) {
            for t in tiles where zlibInflate(t.stream, into: out, capacity: t.size) != t.size { failures += 1 }
        }
        let mb = Double(outputBytes) / 1e6
        var table = Table(title: "Inflate throughput, \(tiles.count) tiles of 256x256x\(channels) (\(mb.rounded()) MB from \(inputBytes / 1000) KB), thread CPU, median of \(context.runs)",
                          columns: ["decoder", "ms", "MB/s", "ours/zlib"])
        table.add(["ours (Inflate)", ms(ours.cpu), String(format: "%.0f", mb / ours.cpu), ratio(ours.cpu, zlib.cpu)])
        table.add(["zlib inflate", ms(zlib.cpu), String(format: "%.0f", mb / zlib.cpu), "1.00x"])
        print(table.render(), terminator: "")
        if failures > 0 { print("inflate: \(failures) tiles did not decode to their size") }
    }

    private static func deflate(_ input: [UInt8]) -> [UInt8] {
        var size = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        _ = out.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { i in compress2(o.baseAddress, &size, i.baseAddress, uLong(i.count), 6) }
        }
        return Array(out.prefix(Int(size)))
    }

    /// One stream through zlib as the TIFF decoder used it: init, one inflate call, end.
    private static func zlibInflate(_ stream: [UInt8], into out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        let z = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        z.initialize(to: z_stream())
        defer { inflateEnd(z); z.deinitialize(count: 1); z.deallocate() }
        guard czlib_inflateInit(z) == Z_OK else { return -1 }
        return stream.withUnsafeBufferPointer { s in
            z.pointee.next_in = s.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            z.pointee.avail_in = UInt32(s.count)
            z.pointee.next_out = out
            z.pointee.avail_out = UInt32(capacity)
            return inflate(z, Z_FINISH) == Z_STREAM_END ? capacity - Int(z.pointee.avail_out) : -1
        }
    }
}
