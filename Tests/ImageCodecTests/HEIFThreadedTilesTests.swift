import Foundation
import Synchronization
import Testing
@testable import ImageCodec

/// Grid tiles decoded on several threads (`HEIFTileWorkers`) against the tile-by-tile loop:
/// same bytes, same errors, same refusals, and the extra tiles in flight in the estimate.
@Suite("HEIF threaded tiles")
struct HEIFThreadedTilesTests {
    static func limits(threads: Int) -> DecodeLimits {
        var limits = DecodeLimits.default
        limits.maxThreads = threads
        return limits
    }

    @Test("threaded and single-threaded decodes give byte-identical bitmaps, full size and reduced",
          arguments: [("heif_other_arrow.heic", [1, 8]), ("generated/grid_3x2_odd_rot180.heic", [1, 2, 4, 8]),
                      ("generated/alpha_grid.heic", [1, 2, 4, 8]), ("generated/chroma422_10bit_grid.heic", [1, 2, 8]),
                      ("generated/iovl_two_inputs.heic", [1, 4]), ("heif_RGBA_8__29x100.heif", [1, 2])])
    func identical(file: String, factors: [Int]) throws {
        let bytes = try HEIFFixtures.bytes(file)
        for factor in factors {
            let single = try HEIFDecoder.decode(bytes, reduction: factor, limits: Self.limits(threads: 1))
            for threads in [2, 3] {
                let threaded = try HEIFDecoder.decode(bytes, reduction: factor, limits: Self.limits(threads: threads))
                #expect(threaded.bitmap.width == single.bitmap.width && threaded.bitmap.height == single.bitmap.height)
                #expect(threaded.bitmap.layout == single.bitmap.layout)
                #expect(threaded.bitmap.pixels == single.bitmap.pixels, "\(file) at 1/\(factor) on \(threads) threads")
            }
        }
    }

    /// The data of tile `index` of the primary grid.
    static func tileData(_ bytes: [UInt8], index: Int) throws -> [UInt8] {
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        return Array(try graph.container.data(of: graph.primary.tiles[index].itemID, limits: .default))
    }

    @Test("a failing tile surfaces as the sequential loop's error, the lowest failing tile's, and stops the other thread")
    func errors() throws {
        let bytes = try HEIFFixtures.bytes("heif_other_arrow.heic")
        let five = try Self.tileData(bytes, index: 5), six = try Self.tileData(bytes, index: 6)
        let decoded = Mutex(0)
        // Tile 5 fails late (after 50 ms), tile 6 at once: on two threads tile 6 fails first in
        // time, but the loop meets tile 5 first, so tile 5's error is the one to surface.
        let decoder: HEIFTileDecoder = { ps, data, ls, limits in
            decoded.withLock { $0 += 1 }
            if data.elementsEqual(five) {
                usleep(50_000)
                throw ImageCodecError(.corrupt, "tile five")
            }
            if data.elementsEqual(six) { throw ImageCodecError(.truncated, "tile six") }
            return try HEVCDecoder.decode(parameterSets: ps, data: data, lengthSize: ls, limits: limits)
        }
        var messages: [String] = []
        for threads in [1, 2] {
            decoded.withLock { $0 = 0 }
            do {
                _ = try HEIFDecoder.decode(bytes, reduction: 8, limits: Self.limits(threads: threads), tileDecoder: decoder)
                Issue.record("decode on \(threads) threads did not fail")
            } catch let error as ImageCodecError {
                #expect(error.kind == .corrupt)
                messages.append(error.description)
            }
            let count = decoded.withLock { $0 }
            print("HEIF arrow with tiles 5 and 6 failing, \(threads) thread(s): \(count) of 48 tiles decoded")
            #expect(count <= 7)
        }
        #expect(messages.count == 2 && messages[0] == messages[1])
    }

    @Test("our HEVC decoder polls its stop test once per CTB row and gives up when it turns true")
    func stopBetweenRows() throws {
        let bytes = try HEIFFixtures.bytes("heif_other_arrow.heic")
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        let config = graph.primary.configuration
        let data = try graph.container.data(of: graph.primary.tiles[0].itemID, limits: .default)
        let polls = Mutex(0)
        // One thread: with two, the iPhone tile's wavefront rows are shared between the threads
        // and each polls at the rows it takes, so the count depends on which thread took which
        // rows (HEVCWavefrontTests checks the second thread's polls).
        #expect(throws: ImageCodecError.self) {
            _ = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: data, lengthSize: config.lengthSize,
                                       limits: Self.limits(threads: 1), stop: { polls.withLock { $0 += 1; return $0 > 2 } })
        }
        #expect(polls.withLock { $0 } == 3)
        let kept = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: data, lengthSize: config.lengthSize, limits: .default,
                                          stop: { false })
        let plain = try HEVCDecoder.decode(parameterSets: config.parameterSets, data: data, lengthSize: config.lengthSize)
        #expect(kept.planes.map(\.samples) == plain.planes.map(\.samples))
    }

    @Test("the estimate counts one tile per thread in flight, and limits refuse before decoding")
    func estimate() throws {
        let bytes = try HEIFFixtures.bytes("heif_other_arrow.heic")
        let graph = try HEIFImageGraph(try HEIFContainer(bytes), limits: .default)
        let one = try #require(HEIFDecoder.estimate(graph, reduction: 8, threads: 1).total)
        let two = try #require(HEIFDecoder.estimate(graph, reduction: 8, threads: 2).total)
        let many = try #require(HEIFDecoder.estimate(graph, reduction: 8, threads: 1000).total)
        print("HEIF arrow at 1/8: estimate \(one) bytes on 1 thread, \(two) on 2, \(many) on 1000 (48 tiles)")
        // One 512x512 4:2:0 tile: (520 x 520 + 2 x 260 x 260) x 2 bytes of planes, plus its data.
        #expect(two - one >= 520 * 520 * 3)
        #expect(many - one == 47 * (two - one))
        #expect(HEIFDecoder.estimate(graph, reduction: 8, threads: 0).total == one)
        let calls = Mutex(0)
        let counting: HEIFTileDecoder = { ps, data, ls, limits in
            calls.withLock { $0 += 1 }
            return try HEVCDecoder.decode(parameterSets: ps, data: data, lengthSize: ls, limits: limits)
        }
        var tight = Self.limits(threads: 2)
        tight.maxMemoryBytes = two - 1
        #expect { _ = try HEIFDecoder.decode(bytes, reduction: 8, limits: tight, tileDecoder: counting) } throws: {
            ($0 as? ImageCodecError)?.kind == .limitExceeded
        }
        #expect(calls.withLock { $0 } == 0)
        tight.maxThreads = 1
        _ = try HEIFDecoder.decode(bytes, reduction: 8, limits: tight, tileDecoder: counting)
        #expect(calls.withLock { $0 } == 48)
    }

    @Test("hostile grids are refused before any thread or tile buffer, on any thread count")
    func hostile() throws {
        for file in ["generated/hostile_grid_16641_tiles.heic", "generated/hostile_ispe_65535.heic", "generated/hostile_grid_cycle.heic"] {
            let bytes = try HEIFFixtures.bytes(file)
            let calls = Mutex(0)
            let counting: HEIFTileDecoder = { ps, data, ls, limits in
                calls.withLock { $0 += 1 }
                return try HEVCDecoder.decode(parameterSets: ps, data: data, lengthSize: ls, limits: limits)
            }
            #expect(throws: ImageCodecError.self) {
                _ = try HEIFDecoder.decode(bytes, reduction: 8, limits: Self.limits(threads: 64), tileDecoder: counting)
            }
            #expect(calls.withLock { $0 } == 0, "\(file)")
        }
    }
}
