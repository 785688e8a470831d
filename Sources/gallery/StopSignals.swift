import Dispatch
import Foundation
import Synchronization

/// SIGTERM and SIGINT while a command works through a long pass (`gallery index`): the first one
/// calls `onStop` (the indexer then stops after the files it is reading and writes what it
/// read, so the next run starts where this one stopped); a second one ends the process at once,
/// as an impatient Ctrl-C expects. Made once per process and kept for its life.
final class StopSignals: @unchecked Sendable {
    // `@unchecked`: `sources` is written only in `init`, before any handler can run.
    private let received = Atomic<Int32>(0)
    private var sources: [DispatchSourceSignal] = []
    private let onStop: @Sendable () -> Void

    init(_ onStop: @escaping @Sendable () -> Void) {
        self.onStop = onStop
        for number in [SIGTERM, SIGINT] {
            // Ignored, so that only the dispatch source sees it.
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in handle(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func handle(_ number: Int32) {
        guard received.compareExchange(expected: 0, desired: number, ordering: .relaxed).exchanged else {
            Glibc.signal(number, SIG_DFL)
            raise(number)
            return
        }
        onStop()
    }

    /// The signal that asked to stop, nil when none came.
    var stopSignal: Int32? {
        let number = received.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }
}
