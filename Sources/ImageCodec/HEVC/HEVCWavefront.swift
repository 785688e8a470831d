#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Whether the CTB rows of a wavefront (WPP) slice segment may be decoded on two threads.
enum HEVCWavefrontMode: Sendable {
    /// One thread, substreams one after another.
    case serial
    /// Two threads when the process may run on more than one CPU and the segment is big
    /// enough to gain (`HEVCWavefront.minimumLumaSamples`).
    case automatic
    /// Two threads whenever the stream allows it, whatever its size (tests).
    case always
}

/// Decodes the CTB rows of a slice segment with `entropy_coding_sync_enabled_flag` on two
/// threads (H.265 9.3.1, 9.3.2.4): x265's default, and the 720p poster's.
///
/// Each CTB row is its own substream, located through `entry_point_offset_minus1` (sizes in
/// escaped bytes, mapped to RBSP positions through the NAL unit's emulation prevention
/// positions). Row k of the segment starts with the contexts row k - 1 held after its second
/// CTB, and its CTB x may start once row k - 1 has finished CTB x + 1: intra prediction reads
/// samples and modes up to the CTB above and to the right, and the row's first CTB needs those
/// contexts. The calling thread with its own decoder and a second thread with a second decoder
/// over the same frame each take the next row nobody has taken (an atomic counter), so a second
/// thread that finds no idle core leaves its rows to the first instead of stalling it. Every
/// CTB is decoded by the same code from the same contexts and neighbours as the serial decode,
/// so the planes are identical. The loop filters run after the whole picture, as in the serial path.
///
/// Progress per row is an atomic count (release on publish, acquire on read), which also
/// orders the samples and per-block facts a row writes before the row below reads them. A row
/// that finds the row above too close spins briefly, then sleeps on a pthread condition until
/// the row above is a few CTBs further on (so that a loaded machine's wake-up latency is paid
/// once per few CTBs, not per CTB). A failure on either thread (damaged data, entry points
/// that do not match where a row's substream ends, the caller's stop) stops both; the
/// segment's rows are then reset and decoded again serially, so any stream decodes to what the
/// serial path gives,
/// errors included. Taken only for a whole frame (not `HEVCRowStream`'s window), one tile, a
/// segment starting at a row start and whose entry points give one substream per row.
final class HEVCWavefront: @unchecked Sendable {
    /// Segments smaller than this (luma samples of their rows) are decoded on one thread in
    /// `.automatic` mode: starting and joining a thread (tens of microseconds) would be a
    /// noticeable part of their decode. The fuzzer's small wavefront seeds are above it.
    static let minimumLumaSamples = 128 * 128

    /// CPUs this process may run on, read once: the `Cpus_allowed` mask of /proc/self/status
    /// (which `taskset` and cpusets narrow; glibc's `sched_getaffinity` is not visible to
    /// Swift), or the online CPUs where that cannot be read.
    static let usableCPUs: Int = {
        let online = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return online }
        defer { close(fd) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while text.count < 1 << 16 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            text += chunk[0..<n]
        }
        let key = Array("\nCpus_allowed:".utf8)
        guard let at = text.indices.first(where: { text[$0...].starts(with: key) }) else { return online }
        var count = 0
        for byte in text[(at + key.count)...] {
            if byte == UInt8(ascii: "\n") { break }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: continue
            }
            count += digit.nonzeroBitCount
        }
        return count > 0 ? count : online
    }()

    /// Where the rows of one slice segment are: the first CTB row, per row of the segment the
    /// RBSP byte its substream starts at, and the end of the RBSP. Each row's engine may read
    /// on to that end, as the serial one does, so that a damaged row reads the same bytes.
    struct Plan {
        let firstRow: Int
        let starts: [Int]
        let end: Int
        var rows: Int { starts.count }
    }

    /// The plan for decoding `header`'s segment of `unit` on two threads, or nil when the
    /// segment must be decoded serially (see the type's conditions).
    static func plan(for decoder: HEVCSliceDecoder, unit: HEVCNALUnit, header: HEVCSliceHeader) -> Plan? {
        let frame = decoder.frame, pps = decoder.pps, layout = frame.layout
        guard decoder.wavefront != .serial, pps.entropyCodingSync, !pps.tilesEnabled, !frame.windowed,
              decoder.startRow == nil else { return nil }
        let w = layout.widthInCtbs
        let rows = header.entryPointOffsets.count + 1
        let firstRow = header.segmentAddress / w
        guard w >= 2, rows >= 2, header.segmentAddress % w == 0, firstRow + rows <= layout.heightInCtbs else { return nil }
        if decoder.wavefront == .automatic {
            let samples = rows * w << (2 * decoder.sps.log2CtbSize)
            guard usableCPUs > 1, samples >= minimumLumaSamples else { return nil }
        }
        for ctb in (firstRow * w)..<((firstRow + rows) * w) where frame.ctbSliceAddress[ctb] >= 0 { return nil }
        let count = unit.rbsp.count
        var starts = [header.dataOffset]
        var escaped = unit.escapedPosition(rbsp: header.dataOffset)
        for offset in header.entryPointOffsets {
            escaped += offset
            let start = unit.rbspPosition(escaped: escaped)
            guard start > starts[starts.count - 1], start < count else { return nil }
            starts.append(start)
        }
        return Plan(firstRow: firstRow, starts: starts, end: count)
    }

    /// Decodes the segment `plan` describes with `decoder` and a second decoder on a second
    /// thread. False when that failed or could not start: the caller resets the rows
    /// (`HEVCFrame.resetRows`) and decodes the segment serially. Throws only the error of the
    /// caller's `stop` (polled by both threads), which ends the decode as it would end the serial one.
    static func decode(_ plan: Plan, decoder: HEVCSliceDecoder, rbsp: UnsafePointer<UInt8>) throws -> Bool {
        let helper = decoder.wavefrontPartner()
        let run = HEVCWavefront(plan: plan, rbsp: rbsp, helper: helper)
        guard run.start() else { return false }
        run.decodeRows(with: decoder)
        run.join()
        if let stopError = run.stopError ?? run.helperStopError { throw stopError }
        guard !run.failed else { return false }
        // Leave the calling decoder as the serial decode would: the last wavefront storage and,
        // for a dependent segment to follow, the state at the segment's end.
        let last = plan.rows - 1
        let saved = run.done(last) >= 2 ? last : last - 1
        decoder.wppContexts.update(from: run.rowContexts + saved * HEVCCABACTables.count, count: HEVCCABACTables.count)
        if run.lastRowByHelper {
            decoder.sliceEndContexts.update(from: helper.sliceEndContexts, count: HEVCCABACTables.count)
            decoder.lastQpY = helper.lastQpY
        }
        return true
    }

    let plan: Plan
    let rbsp: UnsafePointer<UInt8>
    private let helper: HEVCSliceDecoder
    /// CTBs in a row.
    private let width: Int
    /// Per row of the segment: the contexts after its second CTB, and its CTBs decoded.
    let rowContexts: UnsafeMutablePointer<UInt8>
    private let progress: UnsafeMutablePointer<Atomic<Int>>
    private let stopped = Atomic<Bool>(false)
    /// Threads asleep on `changed` (publishers take the lock and signal only when one is).
    private let sleepers = Atomic<Int>(0)
    /// The next row no thread has taken.
    private let nextRow = Atomic<Int>(0)
    /// Whether the second thread decoded the segment's last row (read after the join).
    private(set) var lastRowByHelper = false
    /// The error of the caller's `stop` as each thread met it (each written by its own thread
    /// only, read after the join): both threads poll it at the start of each row they take.
    private(set) var stopError: ImageCodecError?
    private(set) var helperStopError: ImageCodecError?
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var thread = pthread_t()

    /// Polls before sleeping, and the CTBs a sleeping row lets the row above gain.
    private static let spins = 4000
    private static let slack = 3

    private init(plan: Plan, rbsp: UnsafePointer<UInt8>, helper: HEVCSliceDecoder) {
        self.plan = plan
        self.rbsp = rbsp
        self.helper = helper
        width = helper.frame.layout.widthInCtbs
        rowContexts = .allocate(capacity: plan.rows * HEVCCABACTables.count)
        rowContexts.initialize(repeating: 0, count: plan.rows * HEVCCABACTables.count)
        progress = .allocate(capacity: plan.rows)
        for k in 0..<plan.rows { (progress + k).initialize(to: Atomic(0)) }
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        changed.deallocate()
        lock.deallocate()
        rowContexts.deallocate()
        progress.deinitialize(count: plan.rows)
        progress.deallocate()
    }

    /// CTBs row `k` has decoded.
    func done(_ k: Int) -> Int { progress[k].load(ordering: .acquiring) }

    /// Starts the second thread on the odd rows; false when it cannot be started.
    private func start() -> Bool {
        // The closure captures nothing (a capturing one crashes the 6.3.1 compiler in Swift 6
        // mode): the run travels as a retained context, released when the thread ends.
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let run = Unmanaged<HEVCWavefront>.fromOpaque(raw).takeRetainedValue()
            run.decodeRows(with: run.helper)
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<HEVCWavefront>.fromOpaque(context).release()
            return false
        }
        return true
    }

    private func join() { pthread_join(thread, nil) }

    /// Whether either thread gave up.
    var failed: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    /// Decodes the rows nobody has taken yet with `decoder`, in order, stopping both threads at
    /// the first failure.
    private func decodeRows(with decoder: HEVCSliceDecoder) {
        while !failed {
            let k = nextRow.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
            guard k < plan.rows else { return }
            do {
                try decoder.decodeWavefrontRow(k, of: self)
            } catch let error as HEVCWavefrontStop {
                if decoder === helper { helperStopError = error.error } else { stopError = error.error }
                stop()
                return
            } catch {
                stop()
                return
            }
            if k == plan.rows - 1 { lastRowByHelper = decoder === helper }
        }
    }

    /// Row `k` has decoded `count` CTBs.
    func publish(row k: Int, count: Int) {
        progress[k].store(count, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 { wake() }
    }

    /// Waits until row `k` has decoded at least `count` CTBs; returns how many it has, or nil
    /// once the run has stopped. After a short spin it sleeps until the row has `count` plus
    /// `slack` CTBs (or is complete).
    func wait(row k: Int, count: Int) -> Int? {
        for _ in 0..<Self.spins {
            let d = done(k)
            if d >= count { return d }
            if failed { return nil }
        }
        let target = min(count + Self.slack, width)
        pthread_mutex_lock(lock)
        sleepers.add(1, ordering: .sequentiallyConsistent)
        while progress[k].load(ordering: .sequentiallyConsistent) < target && !failed {
            pthread_cond_wait(changed, lock)
        }
        sleepers.subtract(1, ordering: .sequentiallyConsistent)
        pthread_mutex_unlock(lock)
        return failed ? nil : done(k)
    }

    private func wake() {
        pthread_mutex_lock(lock)
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
    }

    private func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wake()
    }
}

extension HEVCSliceDecoder {
    /// The second decoder of this one's wavefront runs, made on first use, with the current
    /// slice's state.
    func wavefrontPartner() -> HEVCSliceDecoder {
        let partner = wavefrontHelper ?? HEVCSliceDecoder(frame: frame)
        wavefrontHelper = partner
        partner.header = header
        partner.sliceAddress = sliceAddress
        partner.sliceIndex = sliceIndex
        partner.sliceQp = sliceQp
        partner.cbQpOffset = cbQpOffset
        partner.crQpOffset = crQpOffset
        partner.lastQpY = lastQpY
        // The caller's stop test is polled on the second thread too (it is made for that: a
        // grid's tiles share one across their threads), so a stop ends both threads' rows.
        partner.stop = stop
        return partner
    }

    /// Decodes row `k` of `run`'s segment: the CTB loop of `decode(_:header:)` for one
    /// substream, waiting on the row above before each CTB and publishing its own progress.
    func decodeWavefrontRow(_ k: Int, of run: HEVCWavefront) throws {
        let layout = frame.layout
        let w = layout.widthInCtbs
        let rows = run.plan.rows
        let failure = ImageCodecError(.corrupt, "HEVC wavefront row stopped")
        var ctbAddrRs = (run.plan.firstRow + k) * w
        cabac.pointee = HEVCCABACEngine(base: run.rbsp, position: run.plan.starts[k], end: run.plan.end)
        // CTBs of row k - 1 known to be decoded.
        var above = 0
        if k == 0 {
            initialiseContexts(ctbAddrRs: ctbAddrRs, ctbAddrTs: layout.rsToTs[ctbAddrRs], sliceStart: true)
        } else {
            // The CTB above and to the right is in this slice (the segment starts at a row
            // start, W ≥ 2): the row inherits the contexts row k - 1 stored after it (9.3.2.4).
            guard let seen = run.wait(row: k - 1, count: 2) else { throw failure }
            above = seen
            contexts.update(from: run.rowContexts + (k - 1) * HEVCCABACTables.count, count: HEVCCABACTables.count)
            lastQpY = sliceQp
        }
        if let stop, stop() {
            throw HEVCWavefrontStop(error: ImageCodecError(.invalidArgument, "HEVC decode stopped by its caller"))
        }
        var x = 0
        while true {
            guard frame.ctbSliceAddress[ctbAddrRs] < 0 else { throw ImageCodecError(.corrupt, "HEVC CTB decoded twice") }
            if k > 0 {
                let need = min(x + 2, w)
                if above < need {
                    guard let seen = run.wait(row: k - 1, count: need) else { throw failure }
                    above = seen
                }
            }
            try decodeCodingTreeUnit(ctbAddrRs: ctbAddrRs, ctbAddrTs: layout.rsToTs[ctbAddrRs])
            let endOfSlice = cabac.pointee.decodeTerminate() == 1
            if x == 1 {
                (run.rowContexts + k * HEVCCABACTables.count).update(from: contexts, count: HEVCCABACTables.count)
            }
            x += 1
            run.publish(row: k, count: x)
            if endOfSlice {
                // Only the last substream may end the segment, and the serial decoder keeps
                // its final state for a dependent segment to follow.
                guard k == rows - 1 else { throw ImageCodecError(.corrupt, "HEVC slice ends before its last substream") }
                if pps.dependentSliceSegmentsEnabled {
                    sliceEndContexts.update(from: contexts, count: HEVCCABACTables.count)
                }
                return
            }
            if x == w {
                // end_of_subset_one_bit, and the next row's substream must start right here.
                guard k < rows - 1, cabac.pointee.decodeTerminate() == 1,
                      cabac.pointee.position == run.plan.starts[k + 1] else {
                    throw ImageCodecError(.corrupt, "HEVC substream does not end at its entry point")
                }
                return
            }
            ctbAddrRs += 1
        }
    }
}

/// The caller's `stop` ended a wavefront row: the decode ends with `error` rather than being
/// done again serially.
struct HEVCWavefrontStop: Error {
    let error: ImageCodecError
}
