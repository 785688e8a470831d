#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Runs the tiles of a grid on several threads: each thread takes the next tile index, decodes
/// it on its own (every `HEVCSliceDecoder` is created per tile: the decoders share only
/// immutable tables), then reduces it into the output under one lock, so reductions never
/// overlap and the shared output, block sums and row buffer need no other guard. A thread
/// holds one decoded tile at a time: `threads` tiles are in flight at most.
///
/// The result is the sequential one, byte for byte: the reduction adds integers into block
/// sums (the order of additions does not change them) or copies each tile to its own pixels.
/// Errors are the sequential ones too: indices are handed out in order, so when tile i fails
/// every tile before it has already been taken and runs to its end; the error of the lowest
/// failing tile is thrown, which is the one a tile-by-tile loop meets first. No thread takes a
/// tile after a failure, a tile after the failed one that is being decoded is stopped at its
/// next CTB row (the `stop` test `decode` gets; our HEVC decoder polls it) and dropped, and
/// tiles before it run to their end.
///
/// Threads are pthreads (no Foundation in this module); when one cannot be started, the
/// threads that did start (at least the caller) do all the tiles.
final class HEIFTileWorkers<Tile>: @unchecked Sendable {
    private struct State {
        var next = 0
        var failedAt = Int.max
        var error: (any Error)?
    }

    private let count: Int
    private let decode: (Int, @escaping () -> Bool) throws -> Tile?
    private let reduce: (Int, Tile) throws -> Void
    private let state = Mutex(State())
    /// `State.failedAt`, readable without the lock by the decoders' stop tests.
    private let failedAt = Atomic<Int>(.max)
    private let reduceLock = Mutex(())

    /// `decode(i, stop)` gives tile i's decoded form, nil when it has nothing to draw; it may
    /// give up early (throwing anything) once `stop()` is true, as the tile is then dropped.
    /// `reduce(i, tile)` draws it. `decode` runs on several threads at once, `reduce` on one at
    /// a time.
    private init(count: Int, decode: @escaping (Int, @escaping () -> Bool) throws -> Tile?,
                 reduce: @escaping (Int, Tile) throws -> Void) {
        self.count = count
        self.decode = decode
        self.reduce = reduce
    }

    /// Runs every tile `0..<count` on up to `threads` threads (the caller is one of them) and
    /// returns when all have stopped; throws the error of the lowest failing tile.
    static func run(count: Int, threads: Int, decode: @escaping (Int, @escaping () -> Bool) throws -> Tile?,
                    reduce: @escaping (Int, Tile) throws -> Void) throws {
        let workers = HEIFTileWorkers(count: count, decode: decode, reduce: reduce)
        var started: [pthread_t] = []
        for _ in 1..<max(1, min(threads, count)) {
            guard let thread = startThread(workers) else { break }
            started.append(thread)
        }
        workers.work()
        for thread in started { pthread_join(thread, nil) }
        if let error = workers.state.withLock({ $0.error }) { throw error }
    }

    /// One thread's loop: take the next tile, decode it, reduce it; stop at the end or after a
    /// failure.
    private func work() {
        while true {
            let index: Int? = state.withLock { s in
                guard s.next < count, s.failedAt == Int.max else { return nil }
                defer { s.next += 1 }
                return s.next
            }
            guard let index else { return }
            do {
                guard let tile = try decode(index, { self.failedAt.load(ordering: .relaxed) < index }) else { continue }
                if state.withLock({ $0.failedAt < index }) { return }
                try reduceLock.withLock { _ throws in try reduce(index, tile) }
            } catch {
                state.withLock { s in
                    if index < s.failedAt {
                        s.failedAt = index
                        s.error = error
                        failedAt.store(index, ordering: .relaxed)
                    }
                }
                return
            }
        }
    }

    /// Starts a pthread running `workers.work()`. The closure pthread_create gets captures
    /// nothing (a capturing one crashes the 6.3.1 compiler in Swift 6 mode, and a generic one
    /// cannot be a C function): the work travels as a retained, non-generic context.
    private static func startThread(_ workers: HEIFTileWorkers) -> pthread_t? {
        let context = Unmanaged.passRetained(HEIFThreadBody { workers.work() }).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<HEIFThreadBody>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<HEIFThreadBody>.fromOpaque(context).release()
            return nil
        }
        return thread
    }
}

/// What a started thread runs.
private final class HEIFThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
