import FastCGI
import Foundation
import Synchronization
import ImagePipeline
import Testing
@testable import Gallery

/// Changes reach pages without a restart: the catalog store's inotify watcher notices a photo
/// dropped into an album folder, rescans and indexes it. The test polls the page for that
/// state (every 20 ms, 20 s at most) and sleeps for nothing else.
@Suite struct LibraryWatchTests {
    @Test func photoDroppedIntoAnAlbumShowsWithoutARestart() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        var pc = PipelineConfiguration(cacheDirectory: (library.root as NSString).deletingLastPathComponent + "/cache", libraryRoot: library.root)
        pc.log = { _ in }
        let repo = Fixtures.repoRoot.path
        let app = try GalleryApp(configuration: GalleryConfiguration(
            libraryRoot: library.root, templatesDirectory: repo + "/templates", publicDirectory: repo + "/public",
            pageLookupBudget: 60, indexPath: LibraryIndexTests.indexPath(library)),
            pipeline: ImagePipeline(configuration: pc), watchLibrary: true, log: { _ in })
        let trips = try #require(app.catalog.albums.values.first { $0.relativePath == "Trips" })
        func page() -> String {
            String(decoding: app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": "/album/\(trips.id)"])).body, as: UTF8.self)
        }
        #expect(!page().contains("Dropped in later"))
        // Written under a hidden name and renamed, as copying tools do: the photo appears whole.
        try FileManager.default.copyItem(atPath: Fixtures.jpeg("statue_420_q75.jpg"), toPath: library.root + "/Trips/.partial")
        try FileManager.default.moveItem(atPath: library.root + "/Trips/.partial", toPath: library.root + "/Trips/Dropped_in_later.jpg")
        let deadline = DispatchTime.now().uptimeNanoseconds + 20_000_000_000
        var html = page()
        while !html.contains("Dropped in later"), DispatchTime.now().uptimeNanoseconds < deadline {
            usleep(20_000)
            html = page()
        }
        #expect(html.contains("Dropped in later"), "the new photo did not reach the album page within 20 s")
        // Its detail page links a versioned image once the indexer has read it.
        let item = try #require(app.catalog.items.values.first { $0.fileName == "Dropped_in_later.jpg" })
        var detail = ""
        while !detail.contains("?v="), DispatchTime.now().uptimeNanoseconds < deadline {
            detail = String(decoding: app.handle(FastCGIRequest(params: ["REQUEST_METHOD": "GET", "REQUEST_URI": "/photo/\(item.id)"])).body,
                            as: UTF8.self)
            if !detail.contains("?v=") { usleep(20_000) }
        }
        #expect(detail.contains("?v="))
        // The watcher thread ends before the folder goes.
        #expect(app.stop(timeout: 20))
    }

    /// What lets the server exit cleanly: once closed, the gate has waited for the step under
    /// way and lets no later step start.
    @Test func closedGateWaitsForTheStepUnderWayAndTurnsLaterOnesAway() {
        let gate = WorkGate()
        var closedDuringStep = true
        #expect(gate.run { closedDuringStep = gate.close(timeout: 0) })
        #expect(!closedDuringStep, "a step was under way")
        var laterStepRan = false
        #expect(!gate.run { laterStepRan = true })
        #expect(!laterStepRan)
        #expect(gate.close(timeout: 0))
    }

    /// A cancelled pass stops after the file being read and writes what it read; the next
    /// run reads only the rest.
    @Test func cancelledIndexingPassStopsAndTheNextRunReadsTheRest() throws {
        let library = try TestLibrary.make()
        defer { library.remove() }
        let path = LibraryIndexTests.indexPath(library)
        let counter = LibraryIndexTests.CountingReader()
        let box = Mutex<LibraryIndexer?>(nil)
        let indexer = LibraryIndexer(index: try LibraryIndexTests.openIndex(path), readers: 1) { path throws(PipelineError) in
            box.withLock { $0?.cancel() }
            return try counter.reader(path)
        }
        box.withLock { $0 = indexer }
        let cut = indexer.refresh(LibraryIndexTests.scan(library))
        #expect(cut.read == 1 && cut.photos == 1)
        let rest = LibraryIndexer(index: try LibraryIndexTests.openIndex(path), readFile: counter.reader).refresh(LibraryIndexTests.scan(library))
        #expect(rest.read == 6 && rest.photos == 7)
        #expect(counter.reads.load(ordering: .relaxed) == 7)
    }
}
