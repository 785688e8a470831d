import Foundation
import ImagePipeline
import Synchronization

/// Brings the index in line with the library: given a fresh scan (the catalog), re-reads only
/// the files whose stamp (size, mtime to the nanosecond, inode) differs from their row, and
/// deletes the rows of files and folders that are gone. Unchanged files cost one comparison,
/// never a read. Runs on one thread (the catalog store's watcher, or `gallery index`): the
/// index's single writer.
public final class LibraryIndexer: Sendable {
    /// Reads one file's version and facts (`FileIndexing.read`; tests count the calls).
    public typealias FileReader = @Sendable (_ absolutePath: String) throws(PipelineError) -> IndexedFile

    public let index: LibraryIndex
    private let readFile: FileReader
    /// Gauges for `/metrics`.
    public let progress = IndexProgress()
    /// Rows written per transaction: big enough that commits cost little, small enough that
    /// pages see progress during a long first build.
    static let batchSize = 64

    /// Files read at once. Default: the CPU cores, at most 4.
    public let readers: Int
    /// Whether files are read at lowered priority (`BackgroundLanes`): the server's indexer,
    /// which must not slow the pages. `gallery index`, which the user waits for, reads at
    /// normal priority.
    public let background: Bool
    /// Set by `cancel`: the pass under way stops after the files being read now.
    private let cancelled = Atomic<Bool>(false)

    public init(index: LibraryIndex, readers: Int = min(4, ProcessInfo.processInfo.activeProcessorCount),
                background: Bool = true, readFile: @escaping FileReader) {
        self.index = index
        self.readers = max(1, readers)
        self.background = background
        self.readFile = readFile
        progress.photos.store(index.photoCount(), ordering: .relaxed)
    }

    /// Stops the pass under way (and every later one) once the files being read now are
    /// read: the process is about to exit. What was read is written; the rest is left to
    /// the next run, since unchanged stamps are what marks a file as done.
    /// Whether `cancel` was called (a pass under way stops early).
    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// What one pass did.
    public struct Summary: Sendable, Equatable {
        /// Photos in the index afterwards.
        public var photos = 0
        /// Files read (hashed and probed) because they were new or their stamp changed.
        public var read = 0
        /// Rows deleted (files or folders gone).
        public var removed = 0
        /// Files that could not be read as images (kept as failed rows until they change).
        public var failed = 0
        public var seconds = 0.0
        /// The albums (relative folder paths) whose rows changed: stamped with `generation`.
        public var albums: Set<String> = []
        /// The generation this pass wrote (nil when it changed nothing).
        public var generation: Int?
        public var changed: Bool { read > 0 || removed > 0 }
    }

    /// One pass over `catalog` (a scan of the folder). With `folders` (relative paths), only
    /// the albums at those paths are compared with their rows, and only their rows are
    /// removed when the folder is gone: what a change in a few folders costs. `onProgress(done,
    /// total)` runs after each file read.
    public func refresh(_ catalog: Catalog, folders only: Set<String>? = nil, onProgress: ((Int, Int) -> Void)? = nil) -> Summary {
        let start = DispatchTime.now().uptimeNanoseconds
        var summary = Summary()
        index.flushPlaceholders()
        var pending: [(relativePath: String, absolutePath: String, sidecarPath: String?, root: String, stamp: FileStamp)] = []
        var removals: [LibraryIndex.Change] = []
        var folders = Set<String>()
        var touched = Set<String>()
        let albums = only.map { paths in paths.compactMap { catalog.albumID(at: $0).flatMap { catalog.albums[$0] } } }
            ?? Array(catalog.albums.values)
        for album in albums {
            let files = album.itemIDs.compactMap { id -> (name: String, rel: String, abs: String, stamp: FileStamp, sidecar: SidecarFile?, root: String)? in
                guard let item = catalog.items[id], case .file(let rel, let root) = item.source, let stamp = item.stamp else { return nil }
                return (item.fileName, rel, root.path + "/" + rel, stamp, item.sidecar, root.path)
            }
            guard !files.isEmpty || !album.relativePath.isEmpty else { continue }
            folders.insert(album.relativePath)
            guard var known = index.stamps(folder: album.relativePath) else { return summary }
            for file in files {
                let row = known.removeValue(forKey: file.name)
                // A sidecar added, changed or removed re-reads its photo like a change of the file.
                if row?.stamp != file.stamp || row?.current != true || row?.sidecar != file.sidecar?.stamp {
                    let folder = String(file.abs.dropLast(file.name.count))
                    let sidecarPath = file.sidecar.flatMap { $0.name.isEmpty ? nil : folder + $0.name }
                    pending.append((file.rel, file.abs, sidecarPath, file.root, file.stamp))
                    touched.insert(album.relativePath)
                }
            }
            for gone in known.keys {
                removals.append(.remove(relativePath: album.relativePath.isEmpty ? gone : album.relativePath + "/" + gone))
                touched.insert(album.relativePath)
            }
        }
        // Folders gone (or emptied of photos): every indexed folder without such an album, or
        // only those asked about.
        let known = only.map { $0.intersection(index.folders(among: $0) ?? []) } ?? index.folders() ?? []
        for folder in known where !folders.contains(folder) {
            removals.append(.removeFolder(folder))
            touched.insert(folder)
        }
        if !removals.isEmpty, index.write(removals) { summary.removed = removals.count }

        progress.pending.store(pending.count, ordering: .relaxed)
        var batch: [LibraryIndex.Change] = []
        var done = 0
        let readFile = self.readFile
        let shared = SharedInodeReads(pending: pending.map(\.stamp))
        // Files are read `readers` at a time (hashing is CPU work once the file is in the page
        // cache), on lanes that yield to request threads (`BackgroundLanes`) unless this pass
        // is what the user waits for; this thread alone writes.
        for start in stride(from: 0, to: pending.count, by: Self.batchSize) {
            if cancelled.load(ordering: .relaxed) { break }
            let slice = Array(pending[start..<min(pending.count, start + Self.batchSize)])
            let results = ResultSlots<Result<IndexedFile, PipelineError>>(count: slice.count)
            let sidecars = ResultSlots<SidecarText?>(count: slice.count)
            let lanes = min(readers, slice.count)
            // Fixed before the lanes start: a stamp stops being shared once its last name took it.
            let laneOf = slice.indices.map { shared.lane(of: $0, stamp: slice[$0].stamp, lanes: lanes) }
            let lane: @Sendable (Int) -> Void = { [self] lane in
                for i in 0..<slice.count where laneOf[i] == lane {
                    if cancelled.load(ordering: .relaxed) { break }
                    if let known = shared.reuse(slice[i].stamp) {
                        results.set(i, .success(known))
                    } else {
                        do throws(PipelineError) {
                            let read = try readFile(slice[i].absolutePath)
                            shared.store(read, for: slice[i].stamp)
                            results.set(i, .success(read))
                        } catch {
                            results.set(i, .failure(error))
                        }
                    }
                    // A sidecar that cannot be read (gone since the scan, too big) leaves the
                    // row without its stamp, so the next pass tries again.
                    if let path = slice[i].sidecarPath { sidecars.set(i, try? FileIndexing.readSidecar(path: path, root: slice[i].root)) }
                }
            }
            if background {
                BackgroundLanes.run(count: lanes, name: "index-reader", lane)
            } else {
                DispatchQueue.concurrentPerform(iterations: lanes, execute: lane)
            }
            for (i, file) in slice.enumerated() {
                switch results.get(i) {
                case .success(let read)?:
                    var facts = read.facts
                    let sidecar = sidecars.get(i) ?? nil
                    if let sidecar, let embedded = facts?.text { facts?.text = sidecar.text.filling(from: embedded) }
                    batch.append(.put(IndexedPhoto(relativePath: file.relativePath, stamp: read.stamp, version: read.version, facts: facts,
                                                   sidecar: sidecar?.stamp)))
                    summary.read += 1
                case .failure(let error)?:
                    // A file that vanished since the scan is left to the next pass; one that is
                    // there but unreadable as an image is remembered as failed until it changes.
                    if let stamp = FileStamp.of(path: file.absolutePath) {
                        batch.append(.put(IndexedPhoto(relativePath: file.relativePath, stamp: stamp, version: "", facts: nil,
                                                       failure: "\(error)")))
                        summary.failed += 1
                    }
                case nil: break
                }
                done += 1
                onProgress?(done, pending.count)
            }
            index.write(batch)
            batch.removeAll(keepingCapacity: true)
            progress.pending.store(pending.count - done, ordering: .relaxed)
        }
        index.write(batch)
        if summary.changed {
            summary.albums = touched
            summary.generation = index.updateAlbums(touched)
        }
        summary.photos = index.photoCount()
        summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        progress.photos.store(summary.photos, ordering: .relaxed)
        progress.lastScanMilliseconds.store(Int(summary.seconds * 1000), ordering: .relaxed)
        progress.passes.add(1, ordering: .relaxed)
        return summary
    }
}

/// The indexer's gauges, read by `/metrics`.
public final class IndexProgress: Sendable {
    /// Photos in the index.
    public let photos = Atomic<Int>(0)
    /// Files of the running pass still to be read.
    public let pending = Atomic<Int>(0)
    /// Duration of the last completed pass.
    public let lastScanMilliseconds = Atomic<Int>(0)
    /// Completed passes.
    public let passes = Atomic<Int>(0)

    /// Prometheus text.
    public func text() -> String {
        """
        # HELP gallery_index_photos Photos in the library index.
        # TYPE gallery_index_photos gauge
        gallery_index_photos \(photos.load(ordering: .relaxed))
        # HELP gallery_index_pending Files the running indexing pass has still to read.
        # TYPE gallery_index_pending gauge
        gallery_index_pending \(pending.load(ordering: .relaxed))
        # HELP gallery_index_last_scan_seconds Duration of the last indexing pass.
        # TYPE gallery_index_last_scan_seconds gauge
        gallery_index_last_scan_seconds \(Double(lastScanMilliseconds.load(ordering: .relaxed)) / 1000)
        # HELP gallery_index_passes_total Indexing passes completed.
        # TYPE gallery_index_passes_total counter
        gallery_index_passes_total \(passes.load(ordering: .relaxed))

        """
    }
}
