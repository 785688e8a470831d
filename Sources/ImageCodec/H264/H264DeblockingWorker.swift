#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the deblocking filter on a second thread, two macroblock rows behind the decoding
/// thread, so that a large poster's filter costs no wall time when a core is idle.
///
/// Why two rows: intra prediction reads the unfiltered samples of the row above (its bottom
/// line and the right column of the macroblock to the left), and filtering macroblock row k
/// writes samples of rows k - 1 and k only. Once rows 0...k + 1 are decoded nothing will read
/// row k unfiltered again, so row k may be filtered while row k + 2 and later are decoded.
/// Rows are filtered in raster order on one thread, exactly as `H264Deblocking.apply` does,
/// so the planes are the single-threaded ones sample for sample.
///
/// The decoding thread reports each macroblock row that is complete (`decoded(rows:)`, with a
/// copy of the slice filters so far: the worker never reads the array the decoder appends
/// to) and ends with `finish()` (filter the rest, join) or `cancel()` (stop, join) before the
/// frame is used or released. Waiting is a pthread condition, not a spin.
final class H264DeblockingWorker: @unchecked Sendable {
    /// Pictures with fewer macroblock rows are filtered on the decoding thread.
    static let minimumRows = 3

    private let frame: H264Frame
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `lock`.
    private var filterableRows = 0
    private var filters: [H264SliceFilter] = []
    private var cancelled = false
    // Owned by the decoding thread.
    private var thread = pthread_t()
    private var joined = false

    private init(frame: H264Frame) {
        self.frame = frame
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        changed.deallocate()
        lock.deallocate()
    }

    /// A started worker for `frame`, or nil when the picture is too small to gain or the
    /// thread cannot be started (the caller then filters on its own thread).
    static func start(frame: H264Frame) -> H264DeblockingWorker? {
        guard frame.heightInMbs >= minimumRows else { return nil }
        let worker = H264DeblockingWorker(frame: frame)
        // The closure captures nothing (a capturing one crashes the 6.3.1 compiler in Swift 6
        // mode): the worker travels as a retained context, released when the thread ends.
        let context = Unmanaged.passRetained(worker).toOpaque()
        let rc = pthread_create(&worker.thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<H264DeblockingWorker>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<H264DeblockingWorker>.fromOpaque(context).release()
            worker.joined = true
            return nil
        }
        return worker
    }

    /// Macroblock rows 0..<rows are decoded: rows 0..<rows - 1 may be filtered.
    func decoded(rows: Int, filters current: [H264SliceFilter]) {
        update(rows: rows - 1, filters: current)
    }

    /// Every macroblock is decoded: filters the rest and returns when the whole picture is done.
    func finish() {
        update(rows: frame.heightInMbs, filters: frame.sliceFilters)
        join()
    }

    /// Stops the worker after the row it is filtering and waits for it (a failed decode).
    func cancel() {
        pthread_mutex_lock(lock)
        cancelled = true
        pthread_cond_signal(changed)
        pthread_mutex_unlock(lock)
        join()
    }

    private func update(rows: Int, filters current: [H264SliceFilter]) {
        pthread_mutex_lock(lock)
        if rows > filterableRows {
            filterableRows = rows
            filters = current
            pthread_cond_signal(changed)
        }
        pthread_mutex_unlock(lock)
    }

    private func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    /// The worker thread: waits for filterable rows, filters them, until the last row or a cancel.
    private func run() {
        let tables = H264Deblocking.makeTables()
        defer { tables.deallocate() }
        var done = 0
        while done < frame.heightInMbs {
            pthread_mutex_lock(lock)
            while filterableRows <= done && !cancelled { pthread_cond_wait(changed, lock) }
            let stop = cancelled, target = filterableRows, snapshot = filters
            pthread_mutex_unlock(lock)
            if stop { return }
            H264Deblocking.filter(frame, rows: done..<target, filters: snapshot, tables: tables)
            done = target
        }
    }
}
