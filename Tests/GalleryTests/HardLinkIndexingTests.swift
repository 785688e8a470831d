import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Hard links share an inode and so their content: one read per inode in a pass, every name
/// indexed with that result; a link that is rewritten stops sharing.
@Suite struct HardLinkIndexingTests {
    @Test func eachInodeIsReadOncePerPass() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let fm = FileManager.default
        try fm.createDirectory(atPath: library.root + "/Links", withIntermediateDirectories: true)
        for n in 1...5 { try fm.linkItem(atPath: library.root + "/Trips/Flower.jpg", toPath: library.root + "/Links/flower-\(n).jpg") }
        for n in 1...3 { try fm.linkItem(atPath: library.root + "/Big_Photo.jpg", toPath: library.root + "/Links/big-\(n).jpg") }

        let counter = LibraryIndexTests.CountingReader()
        var indexes: [LibraryIndex] = []
        for readers in [1, 4] {
            let index = try LibraryIndexTests.openIndex(LibraryIndexTests.indexPath(library) + "-\(readers)")
            indexes.append(index)
            let indexer = LibraryIndexer(index: index, readers: readers, readFile: counter.reader)
            counter.reads.store(0, ordering: .relaxed)
            let summary = indexer.refresh(LibraryIndexTests.scan(library))
            #expect(summary.photos == 15 && summary.read == 15, "\(summary)")
            #expect(counter.reads.load(ordering: .relaxed) == 7, "15 names of 7 files, \(readers) readers")
        }
        let index = indexes[1]
        let rows = index.photos(["Trips/Flower.jpg", "Links/flower-3.jpg", "Big_Photo.jpg", "Links/big-2.jpg"])
        #expect(rows["Links/flower-3.jpg"]?.version == rows["Trips/Flower.jpg"]?.version)
        #expect(rows["Links/big-2.jpg"]?.facts == rows["Big_Photo.jpg"]?.facts && rows["Big_Photo.jpg"]?.facts != nil)

        // A name replaced by other bytes has its own stamp now: read for itself.
        try fm.removeItem(atPath: library.root + "/Links/flower-2.jpg")
        try fm.copyItem(atPath: Fixtures.jpeg("stream_420_q80.jpg"), toPath: library.root + "/Links/flower-2.jpg")
        counter.reads.store(0, ordering: .relaxed)
        let indexer = LibraryIndexer(index: index, readFile: counter.reader)
        #expect(indexer.refresh(LibraryIndexTests.scan(library)).read == 1)
        let replaced = index.photos(["Links/flower-2.jpg", "Trips/Flower.jpg"])
        #expect(replaced["Links/flower-2.jpg"]?.version != replaced["Trips/Flower.jpg"]?.version)
    }
}
