import Synchronization
import Testing
@testable import ImageCodec
#if canImport(Glibc)
import Glibc
#endif

/// Wavefront rows on two threads (`HEVCWavefront`): the same pictures as the serial decode on
/// every conformance fixture, the path really taken where the stream allows it, and damaged
/// streams ending as the serial decode ends them.
@Suite struct HEVCWavefrontTests {
    typealias Conformance = HEVCConformanceTests

    static let decodable = Conformance.entries.filter { $0.expected == "decodes" }

    /// Fixtures decoded serially even when two threads are allowed: no wavefront (nowpp, the
    /// PCM streams of our own writer, the HEIC tile), tiles, or a dependent segment per row.
    static let serialFixtures: Set<String> = [
        "nowpp.265", "kvz_tiles_2x2.265", "kvz_tiles_2x1.265", "kvz_tiles_split.265", "kvz_tiles_3x2_slices.265",
        "kvz_wpp_dependent.265", "heif_zPug_3_tile.265", "pcm_mixed.265", "pcm_lowdepth_keep.265", "pcm_main10.265",
        "pcm_bypass.265",
    ]

    /// Wavefront fixtures with several slices or segments, sizes and formats, for the damage test.
    static let damageFixtures = [
        "ctu16_wpp.265", "slices_wpp.265", "slices_wpp_ctu32.265", "yuv422_slices.265", "kvz_default.265",
        "photo_320x200.265",
    ]

    static func picture(_ file: String, _ mode: HEVCWavefrontMode, loopFilters: Bool) throws -> HEVCPicture {
        try HEVCDecoder.decodeFirstPicture(HEVCNALSplitter.annexB(try Conformance.bytes(file)), limits: .default,
                                           loopFilters: loopFilters, wavefront: mode)
    }

    @Test(arguments: decodable)
    func twoThreadsGiveTheReferencePlanes(_ entry: HEVCConformanceTests.Entry) throws {
        let before = Conformance.serialize(try Self.picture(entry.file, .always, loopFilters: false))
        #expect(Conformance.crc32Hex(before) == entry.prefilter, "\(entry.file) before the loop filters")
        let after = Conformance.serialize(try Self.picture(entry.file, .always, loopFilters: true))
        #expect(Conformance.crc32Hex(after) == (entry.fullFFmpeg ?? entry.full), "\(entry.file) filtered")
        #expect(after == Conformance.serialize(try Self.picture(entry.file, .serial, loopFilters: true)))
    }

    @Test(arguments: decodable)
    func parallelPathIsTakenWhereTheStreamAllowsIt(_ entry: HEVCConformanceTests.Entry) throws {
        let units = HEVCNALSplitter.annexB(try Conformance.bytes(entry.file))
        let decoder = try HEVCDecoder.decodeSlices(units, limits: .default, stop: nil, sink: nil, loopFilters: true,
                                                   wavefront: .always)
        #expect((decoder.wavefrontSegments > 0) != Self.serialFixtures.contains(entry.file),
                "\(entry.file): \(decoder.wavefrontSegments) segments on two threads")
        let serial = try HEVCDecoder.decodeSlices(units, limits: .default, stop: nil, sink: nil, loopFilters: true,
                                                  wavefront: .serial)
        #expect(serial.wavefrontSegments == 0)
    }

    /// Damaged wavefront streams (including lying entry points) give what the serial decode
    /// gives: the same error kind, or the same picture.
    @Test func damagedStreamsEndAsTheSerialDecodeEnds() throws {
        var rng = SplitMix64(seed: 0x5750_5057)
        for file in Self.damageFixtures {
            let stream = try Conformance.bytes(file)
            for _ in 0..<30 {
                var damaged = stream
                for _ in 0..<3 {
                    let i = 20 + Int(rng.next() % UInt64(damaged.count - 20))
                    damaged[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
                }
                let units = HEVCNALSplitter.annexB(damaged)
                func outcome(_ mode: HEVCWavefrontMode) -> String {
                    do {
                        let p = try HEVCDecoder.decodeFirstPicture(units, limits: .default, loopFilters: true, wavefront: mode)
                        return Conformance.crc32Hex(Conformance.serialize(p))
                    } catch let error as ImageCodecError {
                        return "\(error.kind)"
                    } catch {
                        return "not an ImageCodecError: \(error)"
                    }
                }
                #expect(outcome(.always) == outcome(.serial), "\(file)")
            }
        }
    }

    /// The caller's stop test is polled by the second thread as well: a test that turns true
    /// only there ends the decode with the caller's error (not a serial retry). So that the
    /// second thread takes a row however late it starts, the calling thread's second poll
    /// waits (up to 0.2 s) for the second thread to poll: time for it to start and take a row,
    /// which it then polls for as soon as the row above lets it.
    @Test func theSecondThreadPollsTheCallersStop() throws {
        var stoppedThere = 0
        for file in Self.damageFixtures {
            let units = HEVCNALSplitter.annexB(try Conformance.bytes(file))
            let caller = pthread_self()
            let helperPolled = Atomic(false)
            let callerPolls = Mutex(0)
            let stop: () -> Bool = {
                if pthread_equal(pthread_self(), caller) == 0 {
                    helperPolled.store(true, ordering: .sequentiallyConsistent)
                    return true
                }
                if callerPolls.withLock({ $0 += 1; return $0 }) == 2 {
                    var waits = 0
                    while !helperPolled.load(ordering: .sequentiallyConsistent) && waits < 20 {
                        var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                        nanosleep(&pause, nil)
                        waits += 1
                    }
                }
                return false
            }
            var thrown: ImageCodecError?
            do {
                _ = try HEVCDecoder.decodeFirstPicture(units, limits: .default, loopFilters: true, stop: stop, wavefront: .always)
            } catch let error as ImageCodecError {
                thrown = error
            }
            let polled = helperPolled.load(ordering: .sequentiallyConsistent)
            #expect((thrown != nil) == polled, "\(file): second thread polled \(polled), threw \(String(describing: thrown))")
            if let thrown {
                #expect("\(thrown)".contains("stopped by its caller"), "\(file): \(thrown)")
                stoppedThere += 1
            }
        }
        #expect(stoppedThere > 0, "the second thread never polled the stop test")
    }

    /// Entry points count escaped bytes: positions map across the removed 03 bytes.
    @Test func escapedAndRBSPPositionsMapThroughEmulationPrevention() throws {
        // Header 40 01, then payload 00 00 03 01 | 00 00 03 00 | 07.
        let unit = try HEVCNALUnit([0x40, 0x01, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03, 0x00, 0x07][...])
        #expect(unit.rbsp == [0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x07])
        #expect(unit.escapes == [2, 6])
        #expect((0...8).map { unit.rbspPosition(escaped: $0) } == [0, 1, 2, 2, 3, 4, 5, 5, 6])
        #expect((0...6).map { unit.escapedPosition(rbsp: $0) } == [0, 1, 3, 4, 5, 7, 8])
    }
}
