#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reconstructs and deblocks an intra picture on a second thread while the decoding thread
/// parses it: in an I picture, parsing (CABAC or CAVLC) reads only syntax of earlier
/// macroblocks (modes, counts, kinds), never samples, so it can run ahead of prediction and
/// the residual. A 4K picture's parse is about twice its reconstruction and filtering, so the
/// two threads cut the poster's wall time by about a third when a core is idle.
///
/// The parser writes each macroblock's coefficients into a slot of a ring (`slotForParsing`)
/// and hands over its fields (`publish`); this worker reconstructs the macroblocks in the
/// order they were parsed (slices may come in any order), clearing each slot as the
/// single-threaded decoder clears its one block, and filters macroblock row k once rows up to
/// k + 1 are reconstructed (intra prediction of row k + 1 reads row k unfiltered; filtering
/// row k writes rows k - 1 and k only). Prediction, residual and filter are the same code in
/// the same order per macroblock, so the planes are the single-threaded ones sample for sample.
/// I_PCM samples are written by the parser (nothing reads them before they are published).
///
/// The ring holds two macroblock rows and a few more; the parser waits when it is full, the
/// worker when it is empty (pthread mutex and condition, signalled only when the other side
/// waits). The decoding thread ends with `finish()` (reconstruct and filter the rest, join)
/// or `cancel()` (stop, join) before the frame is used or released.
final class H264ReconstructionWorker: @unchecked Sendable {
    /// Pictures with fewer macroblock rows are decoded on one thread.
    static let minimumRows = 3

    /// One parsed macroblock: what `reconstructMacroblock` reads besides its coefficients.
    struct Job {
        var addr: Int32
        var slice: Int32
        var qp: Int8
        var kind: UInt8
        var intra16Mode: UInt8
        var chromaMode: UInt8
        var cbp: UInt8
        /// Bits 0-3: neighbours A, B, C, D available.
        var availability: UInt8
    }

    /// Per slice: its scaling lists (level scales), chroma QP offsets and filter parameters.
    struct Slice {
        var lists: [[UInt8]]?
        var cbQPOffset: Int
        var crQPOffset: Int
        var filter: H264SliceFilter
    }

    private let frame: H264Frame
    /// The decoder state the worker thread reconstructs with (its own scratch and level scales).
    private let reconstructor: H264SliceDecoder
    private let capacity: Int
    private let ring: UnsafeMutablePointer<Int32>
    private let jobs: UnsafeMutablePointer<Job>
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `lock`.
    private var produced = 0
    private var consumed = 0
    private var slices: [Slice] = []
    private var ended = false
    private var cancelled = false
    private var parserWaits = false
    private var workerWaits = false
    // Owned by the parsing thread.
    private var parsed = 0
    private var freeUpTo = 0
    private var thread = pthread_t()
    private var joined = false

    /// Ring slots for a picture `widthInMbs` macroblocks wide.
    static func slots(widthInMbs: Int) -> Int { 2 * widthInMbs + 32 }

    /// Bytes of the ring and its jobs, for the memory estimate.
    static func ringBytes(widthInMbs: Int) -> Int {
        slots(widthInMbs: widthInMbs) * (H264SliceDecoder.Coeff.count * 4 + MemoryLayout<Job>.stride)
    }

    private init(frame: H264Frame) {
        self.frame = frame
        reconstructor = H264SliceDecoder(frame: frame)
        capacity = Self.slots(widthInMbs: frame.widthInMbs)
        ring = .allocate(capacity: capacity * H264SliceDecoder.Coeff.count)
        ring.initialize(repeating: 0, count: capacity * H264SliceDecoder.Coeff.count)
        jobs = .allocate(capacity: capacity)
        jobs.initialize(repeating: Job(addr: 0, slice: 0, qp: 0, kind: 0, intra16Mode: 0, chromaMode: 0, cbp: 0, availability: 0),
                        count: capacity)
        freeUpTo = capacity
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        changed.deallocate()
        lock.deallocate()
        ring.deallocate()
        jobs.deallocate()
    }

    /// A started worker for `frame`, or nil when the picture is too small to gain or the
    /// thread cannot be started (the caller then decodes on its own thread).
    static func start(frame: H264Frame) -> H264ReconstructionWorker? {
        guard frame.heightInMbs >= minimumRows else { return nil }
        let worker = H264ReconstructionWorker(frame: frame)
        // The closure captures nothing (a capturing one crashes the 6.3.1 compiler in Swift 6
        // mode): the worker travels as a retained context, released when the thread ends.
        let context = Unmanaged.passRetained(worker).toOpaque()
        let rc = pthread_create(&worker.thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<H264ReconstructionWorker>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<H264ReconstructionWorker>.fromOpaque(context).release()
            worker.joined = true
            return nil
        }
        return worker
    }

    // MARK: - The parsing thread

    /// A new slice starts; its macroblocks follow.
    func addSlice(_ slice: Slice) {
        pthread_mutex_lock(lock)
        slices.append(slice)
        pthread_mutex_unlock(lock)
    }

    /// The cleared coefficient block the next macroblock is parsed into; waits while the ring is full.
    func slotForParsing() -> UnsafeMutablePointer<Int32> {
        if parsed >= freeUpTo {
            pthread_mutex_lock(lock)
            while parsed - consumed >= capacity {
                parserWaits = true
                pthread_cond_wait(changed, lock)
            }
            parserWaits = false
            freeUpTo = consumed + capacity
            pthread_mutex_unlock(lock)
        }
        return ring + (parsed % capacity) &* H264SliceDecoder.Coeff.count
    }

    /// The macroblock parsed into the last slot handed out.
    func publish(_ job: Job) {
        jobs[parsed % capacity] = job
        parsed += 1
        pthread_mutex_lock(lock)
        produced = parsed
        if workerWaits { pthread_cond_signal(changed) }
        pthread_mutex_unlock(lock)
    }

    /// Every macroblock is parsed: returns when the picture is reconstructed and filtered.
    func finish() {
        pthread_mutex_lock(lock)
        ended = true
        pthread_cond_signal(changed)
        pthread_mutex_unlock(lock)
        join()
    }

    /// Stops the worker after the macroblocks it holds and waits for it (a failed decode).
    func cancel() {
        pthread_mutex_lock(lock)
        cancelled = true
        pthread_cond_signal(changed)
        pthread_mutex_unlock(lock)
        join()
    }

    private func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    // MARK: - The worker thread

    private func run() {
        let tables = H264Deblocking.makeTables()
        defer { tables.deallocate() }
        let w = frame.widthInMbs, rows = frame.heightInMbs
        var done = 0, prefix = 0, filtered = 0
        var known: [Slice] = []
        // Which macroblocks this thread has reconstructed, and the length of their leading run.
        let reconstructed = UnsafeMutablePointer<Bool>.allocate(capacity: frame.mbCount)
        reconstructed.initialize(repeating: false, count: frame.mbCount)
        defer { reconstructed.deallocate() }
        var currentSlice: Int32 = -1
        var filters: [H264SliceFilter] = []
        while true {
            pthread_mutex_lock(lock)
            while produced == done && !ended && !cancelled {
                workerWaits = true
                pthread_cond_wait(changed, lock)
            }
            workerWaits = false
            let stop = cancelled, available = produced, last = ended
            if slices.count != known.count { known = slices }
            pthread_mutex_unlock(lock)
            if stop { return }
            if filters.count != known.count { filters = known.map(\.filter) }
            if available == done && last { break }
            for i in done..<available {
                let slot = i % capacity
                let job = jobs[slot]
                if job.slice != currentSlice {
                    currentSlice = job.slice
                    let slice = known[Int(job.slice)]
                    reconstructor.buildLevelScales(slice.lists)
                    reconstructor.cbQPOffset = slice.cbQPOffset
                    reconstructor.crQPOffset = slice.crQPOffset
                }
                reconstructor.load(job, coefficients: ring + slot &* H264SliceDecoder.Coeff.count)
                reconstructor.reconstructMacroblock()
                reconstructed[Int(job.addr)] = true
                while prefix < frame.mbCount && reconstructed[prefix] { prefix &+= 1 }
                // Rows 0..<prefix / w are reconstructed: all but the last of them may be filtered.
                let filterable = prefix / w - 1
                if filterable > filtered {
                    H264Deblocking.filter(frame, rows: filtered..<filterable, filters: filters, tables: tables)
                    filtered = filterable
                }
            }
            done = available
            pthread_mutex_lock(lock)
            consumed = done
            if parserWaits { pthread_cond_signal(changed) }
            pthread_mutex_unlock(lock)
        }
        if filtered < rows { H264Deblocking.filter(frame, rows: filtered..<rows, filters: filters, tables: tables) }
    }
}
