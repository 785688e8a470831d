import Foundation
import ImagePipeline
import Synchronization
import Testing
@testable import Gallery

/// An index build stopped half way is not redone: what the first pass wrote stays, and the
/// next pass reads only the files it had not reached (the unchanged stamps mark the rest done).
@Suite struct IndexResumeTests {
    /// Counts reads and cancels the indexer once `stopAfter` files were read.
    final class StoppingReader: Sendable {
        let reads = Atomic<Int>(0)
        let stopAfter: Int
        let indexer = Mutex<LibraryIndexer?>(nil)
        init(stopAfter: Int) { self.stopAfter = stopAfter }
        var reader: LibraryIndexer.FileReader {
            { path throws(PipelineError) in
                if self.reads.add(1, ordering: .relaxed).newValue == self.stopAfter {
                    self.indexer.withLock { $0?.cancel() }
                }
                return try FileIndexing.read(path: path)
            }
        }
    }

    @Test func aCancelledBuildIsResumedWithoutRereading() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let fm = FileManager.default
        // 200 distinct files (copies, not links: each is read), in 4 folders.
        let source = try Data(contentsOf: URL(fileURLWithPath: library.root + "/Trips/Flower.jpg"))
        for n in 0..<200 {
            let folder = library.root + "/Many \(n % 4)"
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try (source + Data([UInt8(n & 0xff), UInt8(n >> 8)])).write(to: URL(fileURLWithPath: folder + "/p\(n).jpg"))
        }
        let catalog = LibraryIndexTests.scan(library)
        let total = catalog.items.values.filter { $0.relativePath != nil }.count
        let index = try LibraryIndexTests.openIndex(LibraryIndexTests.indexPath(library))

        let first = StoppingReader(stopAfter: 100)
        let stopping = LibraryIndexer(index: index, readers: 1, readFile: first.reader)
        first.indexer.withLock { $0 = stopping }
        let partial = stopping.refresh(catalog)
        let kept = index.photoCount()
        #expect(partial.read + partial.failed == kept, "what was read is written: \(partial)")
        #expect(kept >= 64 && kept < total, "stopped part way: \(kept) of \(total)")

        let second = LibraryIndexTests.CountingReader()
        let resumed = LibraryIndexer(index: index, readers: 1, readFile: second.reader).refresh(catalog)
        #expect(resumed.read + resumed.failed == total - kept, "\(resumed)")
        #expect(second.reads.load(ordering: .relaxed) <= total - kept, "nothing finished is read again")
        #expect(index.photoCount() == total)
        #expect(LibraryIndexer(index: index, readers: 1, readFile: second.reader).refresh(catalog).read == 0)
    }
}
