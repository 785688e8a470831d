import ImagePipeline
import Synchronization

/// Hard links share an inode, and so their content: within one indexing pass a file whose
/// stamp (size, mtime, inode) is pending under several names is hashed and probed once, and
/// its other names take that result. Only stamps pending more than once are remembered, and
/// each result is dropped once every name has taken it, so a first build of a library of
/// distinct files keeps nothing here.
final class SharedInodeReads: Sendable {
    /// For each stamp pending under more than one name: the names still to take the result.
    private let waiting: Mutex<[FileStamp: Int]>
    private let results = Mutex<[FileStamp: IndexedFile]>([:])

    init(pending stamps: [FileStamp]) {
        var counts: [FileStamp: Int] = [:]
        for stamp in stamps { counts[stamp, default: 0] += 1 }
        waiting = Mutex(counts.filter { $0.value > 1 }.mapValues { $0 - 1 })
    }

    /// Whether `stamp` is pending under more than one name.
    func isShared(_ stamp: FileStamp) -> Bool { waiting.withLock { $0[stamp] != nil } }

    /// The lane (of `lanes`) that reads the file of entry `index` with `stamp`: every name of a
    /// shared stamp goes to the same lane, so the second waits for the first instead of
    /// reading the same file beside it.
    func lane(of index: Int, stamp: FileStamp, lanes: Int) -> Int {
        isShared(stamp) ? Int(stamp.inode % UInt64(lanes)) : index % lanes
    }

    /// The result another name of `stamp` read in this pass, if any (counted as taken).
    func reuse(_ stamp: FileStamp) -> IndexedFile? {
        results.withLock { results -> IndexedFile? in
            guard let file = results[stamp] else { return nil }
            waiting.withLock { waiting in
                let left = (waiting[stamp] ?? 1) - 1
                if left <= 0 {
                    waiting[stamp] = nil
                    results[stamp] = nil
                } else {
                    waiting[stamp] = left
                }
            }
            return file
        }
    }

    /// Keeps `file`, read for a name of `stamp`, for its other names; only when the file was
    /// still what the scan saw (a file rewritten since is not shared with the other names).
    func store(_ file: IndexedFile, for stamp: FileStamp) {
        guard file.stamp == stamp, isShared(stamp) else { return }
        results.withLock { $0[stamp] = file }
    }
}
