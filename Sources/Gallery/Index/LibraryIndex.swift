import Foundation
import ImagePipeline
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the index holds about one photo of the library.
public struct IndexedPhoto: Sendable, Equatable {
    /// Path relative to the library root: the key.
    public var relativePath: String
    /// The file's stamp when it was read; the row counts for a catalog item only while the
    /// item's stamp is the same.
    public var stamp: FileStamp
    /// Content version, as `ImagePipeline.version(url:)` answers it; empty when the file could
    /// not be read as an image (`failure` says why).
    public var version: String
    /// Header facts (oriented size, format, EXIF); nil when the header was unreadable.
    public var facts: ImageFacts?
    /// What pages paint while the image loads: "#rrggbb" today (the mean colour of a cover
    /// render, written back after the first one). A richer preview goes in the same text
    /// column with its own prefix; nil until a cover was rendered.
    public var placeholder: String?
    /// Why the file has no version (not an image, unreadable); nil when it has one.
    public var failure: String?
    /// The stamp of the sidecar (`IMG_1.jpg.xmp` or `IMG_1.xmp`) whose text the row holds; nil
    /// when none was read. A sidecar that changes makes the row stale like the file's own stamp.
    public var sidecar: FileStamp?

    public init(relativePath: String, stamp: FileStamp, version: String, facts: ImageFacts?, placeholder: String? = nil,
                failure: String? = nil, sidecar: FileStamp? = nil) {
        self.relativePath = relativePath
        self.stamp = stamp
        self.version = version
        self.facts = facts
        self.placeholder = placeholder
        self.failure = failure
        self.sidecar = sidecar
    }
}

/// The folders and photos the index knows, for serving at start before the folder is read.
public struct LibraryListing: Sendable {
    public struct Folder: Sendable {
        public var subfolders: [String] = []
        public var images: [(name: String, stamp: FileStamp)] = []
        /// The stamps of the sidecars the rows were read with, by photo name.
        public var sidecars: [String: FileStamp] = [:]
    }
    /// By relative folder path ("" for the root).
    public var folders: [String: Folder] = [:]
    public var photoCount = 0
}

/// The persistent library index: one SQLite file (WAL mode) with a row per photo and per
/// album. One writer (the indexer's thread, serialized by `writer`'s lock; across processes by
/// SQLite's own write lock) and any number of readers, each a connection of its own taken
/// from a small pool, so page views never wait for the indexer.
///
/// The writer is the process holding the lock on `<path>.lock` (the first to open the index).
/// Only the writer repairs: a file that is damaged, not ours (`application_id`) or of another
/// schema (`user_version`) is replaced by the writer with a new empty one, written beside it
/// and renamed over it (the index holds nothing a scan cannot find again), so a process that
/// still has the old file open reads the old inode, never a half-made one, and reopens the new
/// file at its next read. Any other process that meets such a file serves from scans and
/// leaves the repair to the writer. When the folder cannot be written (a read-only cache),
/// `open` answers nil and the app serves from scans as it did without an index.
public final class LibraryIndex: Sendable {
    /// Bump when the schema changes: files of a version `migrations` does not start from are
    /// rebuilt; the others are migrated in place.
    public static let schemaVersion = 3
    /// What rows written by this build know (`facts_level`): 1 = size, format, date, camera;
    /// 2 = also lens, exposure and GPS; 3 = also video facts and what people wrote (titles,
    /// captions, keywords, sidecars); 4 = also an Apple still's content identifier (Live Photo
    /// pairing), so a level-3 row is re-read only when it is an Apple still. Rows of a lower
    /// level keep serving pages, and the indexer reads their files again in the background as
    /// if their stamp had changed.
    public static let factsLevel = 4
    /// "GIdx": marks the file as ours.
    static let applicationID = 0x4749_6478

    public let path: String
    /// nil only once the index is going away (`deinit`).
    private let writer: Mutex<ConnectionBox?>
    private let readers = Mutex<[ConnectionBox]>([])
    /// Reader connections kept open beyond this many are closed after use.
    private let maxIdleReaders = 16
    /// SQLite's page cache of each pooled reader, in KiB (its default is 2,000): readers look
    /// rows up by path or album through indexes, and the kernel's page cache keeps the file's
    /// hot pages anyway, so 16 readers of 2 MB each were RSS that bought little.
    static let readerCacheKiB = 512
    /// Placeholders learned from renders, waiting for `flushPlaceholders`.
    private let placeholders = Mutex<[(relativePath: String, version: String, placeholder: String)]>([])
    /// Set when a reader met a damaged file; the writer rebuilds at its next step.
    private let damaged = Atomic<Bool>(false)
    /// The descriptor holding the writer lock, when this process holds it.
    private let writerLock: Mutex<Int32?>
    let log: @Sendable (String) -> Void

    /// Opens the index at `path`, creating it; nil when it cannot be created or opened for
    /// writing. The first process to open it becomes the writer (`claimWriter`), and only the
    /// writer replaces a damaged, foreign or outdated file (with a log line); another process
    /// meeting one gets nil and serves from scans.
    public static func open(path: String, log: @escaping @Sendable (String) -> Void) -> LibraryIndex? {
        // Its folder is made here, so `--index` may name one that does not exist yet.
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let lock = lockWriter(path)
        guard let connection = openChecked(path: path, repair: lock != nil, log: log) else {
            if let lock { close(lock) }
            return nil
        }
        return LibraryIndex(path: path, connection: connection, writerLock: lock, log: log)
    }

    private init(path: String, connection: SQLiteConnection, writerLock: Int32?, log: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.writer = Mutex(ConnectionBox(connection, inode: Self.inode(path)))
        self.writerLock = Mutex(writerLock)
        self.log = log
    }

    /// Closes every connection first (the last one checkpoints the WAL into the file), and
    /// only then gives up the writer lock: the next writer must find the file finished.
    deinit {
        readers.withLock { $0.removeAll() }
        writer.withLock { $0 = nil }
        writerLock.withLock { if let fd = $0 { close(fd) } }
    }

    /// Opens `path` and checks that it is our index of this schema. With `repair` (the writer)
    /// anything else is replaced by a new empty index (once); without, it is left alone.
    private static func openChecked(path: String, repair: Bool, log: @Sendable (String) -> Void) -> SQLiteConnection? {
        for attempt in 0..<2 {
            var why: String
            do {
                return try openOnce(path: path)
            } catch let problem as IndexProblem {
                why = problem.why
            } catch let error as SQLiteError where error.isDamage {
                why = "damaged (\(error))"
            } catch {
                log("index: cannot open \(path) (\(error)); serving from scans")
                return nil
            }
            guard repair else { log("index: \(path): \(why); serving from scans (the indexing process repairs it)"); return nil }
            guard attempt == 0 else { log("index: \(path): \(why) after a rebuild; serving from scans"); return nil }
            log("index: \(path): \(why); replacing it with a new index")
            guard replaceWithEmpty(path, log: log) else { return nil }
        }
        return nil
    }

    /// Writes a new empty index beside `path` and renames it over `path`. The new file is made
    /// in rollback-journal mode and the old `-wal`/`-shm` are removed before it turns to WAL:
    /// a WAL file left from the old database must never be replayed into the new one.
    private static func replaceWithEmpty(_ path: String, log: @Sendable (String) -> Void) -> Bool {
        let temp = path + ".new-\(getpid())"
        removeFiles(temp)
        do {
            let db = try SQLiteConnection(path: temp, readOnly: false, create: true)
            try db.transaction { () throws(SQLiteError) in
                try db.execute(schema)
                try db.execute("PRAGMA application_id=\(applicationID); PRAGMA user_version=\(schemaVersion)")
            }
        } catch {
            log("index: cannot write a new index at \(temp): \(error)")
            removeFiles(temp)
            return false
        }
        guard rename(temp, path) == 0 else {
            log("index: cannot rename \(temp) over \(path): \(String(cString: strerror(errno)))")
            removeFiles(temp)
            return false
        }
        for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
        return true
    }

    private struct IndexProblem: Error { var why: String }

    /// Opens (creating a missing file: that destroys nothing, so any process may) and checks.
    private static func openOnce(path: String) throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: path, readOnly: false, create: true)
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
        // Counted again under the write lock: two processes starting together create it once.
        let created = try db.transaction { () throws(SQLiteError) -> Bool in
            guard try db.scalar("SELECT count(*) FROM sqlite_master") ?? 0 == 0 else { return false }
            try db.execute(schema)
            try db.execute("PRAGMA application_id=\(applicationID); PRAGMA user_version=\(schemaVersion)")
            return true
        }
        if created { return db }
        let application = try db.scalar("PRAGMA application_id") ?? 0
        guard application == applicationID else { throw IndexProblem(why: "not a gallery index (application_id \(application))") }
        let version = try db.scalar("PRAGMA user_version") ?? 0
        if version < schemaVersion, version >= 1 { try migrate(db) }
        if version == schemaVersion, try !hasSearchTables(db) {
            try db.transaction { () throws(SQLiteError) in try addSearchTables(db) }
        }
        guard version >= 1, version <= schemaVersion else { throw IndexProblem(why: "schema \(version), this build uses \(schemaVersion)") }
        if try !hasGenerations(db) {
            try db.transaction { () throws(SQLiteError) in try addGenerations(db) }
        }
        // Reads the root pages: a file damaged beyond its header fails here rather than later.
        _ = try db.scalar("SELECT count(*) FROM albums")
        return db
    }

    /// Whether this process is the index's writer (it indexes, repairs and rebuilds): the
    /// first process to open the index holds an exclusive lock on `<path>.lock` for its life,
    /// so worker processes started together (`spawn-fcgi -F N`) read the same file but only
    /// one of them hashes. Asked again, a process that is not the writer tries to become it
    /// (the writer may have exited).
    public func claimWriter() -> Bool {
        writerLock.withLock { held in
            if held != nil { return true }
            held = Self.lockWriter(path)
            return held != nil
        }
    }

    /// Whether this process holds the writer lock (without trying to take it).
    public var isWriter: Bool { writerLock.withLock { $0 != nil } }

    /// The descriptor of `<path>.lock` locked exclusively, or nil when another process holds
    /// it. The descriptor stays open: the lock lives with the process.
    private static func lockWriter(_ path: String) -> Int32? {
        let fd = Glibc.open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return fd }
        close(fd)
        return nil
    }

    static func removeFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// The inode of the file at `path` (0 when missing): pooled readers opened on another
    /// inode (the file was replaced since) are dropped, not reused.
    static func inode(_ path: String) -> UInt64 {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(st.st_ino) : 0
    }

    // MARK: reading (any thread)

    /// Runs `body` on a reader connection; nil when the index failed (logged; a damaged file
    /// is rebuilt by the writer's next step).
    func read<T>(_ body: (SQLiteConnection) throws(SQLiteError) -> T) -> T? {
        let box: ConnectionBox
        let current = Self.inode(path)
        if let pooled = readers.withLock({ $0.popLast() }), pooled.inode == current {
            box = pooled
        } else {
            do {
                let connection = try SQLiteConnection(path: path, readOnly: false, create: false)
                try connection.execute("PRAGMA cache_size=-\(Self.readerCacheKiB)")
                box = ConnectionBox(connection, inode: current)
            } catch {
                log("index: cannot open a reader: \(error)")
                return nil
            }
        }
        do throws(SQLiteError) {
            let result = try body(box.connection)
            readers.withLock { if $0.count < maxIdleReaders { $0.append(box) } }
            return result
        } catch {
            if error.isDamage { damaged.store(true, ordering: .relaxed) }
            log("index: read failed: \(error)")
            return nil
        }
    }

    // MARK: writing (the writer's thread)

    /// A change the indexer writes.
    enum Change {
        case put(IndexedPhoto)
        case remove(relativePath: String)
        case removeFolder(String)
    }

    /// Writes `changes` in one transaction; false when the write failed (logged).
    @discardableResult
    func write(_ changes: [Change]) -> Bool {
        guard !changes.isEmpty else { return true }
        return withWriter { db throws(SQLiteError) -> Bool in
            try db.transaction { () throws(SQLiteError) -> Bool in
                for change in changes {
                    switch change {
                    case .put(let p): try Self.put(p, db: db)
                    case .remove(let path): try db.run("DELETE FROM photos WHERE path = ?", [.text(path)])
                    case .removeFolder(let folder): try db.run("DELETE FROM photos WHERE album = ?", [.text(folder)])
                    }
                }
                return true
            }
        } ?? false
    }

    /// Inserts or replaces a row; a row re-read with the same version (a facts level refresh,
    /// a touched file) keeps the placeholder it had unless the new one brings its own.
    static let putSQL: String = {
        let columns = (photoColumns + ", album, name").split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let updates = columns.filter { $0 != "path" }.map { column in
            column == "placeholder"
                ? "placeholder = CASE WHEN photos.version = excluded.version THEN coalesce(excluded.placeholder, photos.placeholder) ELSE excluded.placeholder END"
                : "\(column) = excluded.\(column)"
        }
        return """
            INSERT INTO photos(\(columns.joined(separator: ", "))) VALUES(\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            ON CONFLICT(path) DO UPDATE SET \(updates.joined(separator: ", "))
            """
    }()

    private static func put(_ p: IndexedPhoto, db: SQLiteConnection) throws(SQLiteError) {
        let cut = p.relativePath.lastIndex(of: "/")
        let album = cut.map { String(p.relativePath[..<$0]) } ?? ""
        let name = cut.map { String(p.relativePath[p.relativePath.index(after: $0)...]) } ?? p.relativePath
        let f = p.facts
        let values: [SQLValue] = [
            .text(p.relativePath), .int(p.stamp.size), .int(p.stamp.mtimeSeconds), .int(p.stamp.mtimeNanoseconds),
            .int(Int(Int64(bitPattern: p.stamp.inode))), .text(p.version), .optional(f?.width), .optional(f?.height),
            .optional(f?.pixelCount), .optional(f?.format), .optional(f?.colourSpace), .optional(f?.dateTaken),
            .optional(f?.cameraMake), .optional(f?.cameraModel), .optional(p.placeholder), .optional(p.failure),
            .optional(f?.shot.lensMake), .optional(f?.shot.lensModel), .optional(f?.shot.exposureSeconds),
            .optional(f?.shot.fNumber), .optional(f?.shot.iso), .optional(f?.shot.focalLength), .optional(f?.shot.focalLength35mm),
            .optional(f?.location?.latitude), .optional(f?.location?.longitude), .optional(f?.location?.altitude),
            .int(factsLevel),
        ]
        try db.run(putSQL, values + videoValues(f?.video, contentIdentifier: f?.contentIdentifier) + textValues(f?.text) + [.optional(p.sidecar?.indexText), .text(album), .text(name)])
    }

    /// Remembers a cover render's mean colour for the photo's row; written at the watcher
    /// thread's next step (within about 5 s), so request threads never wait for a write.
    /// Dropped when too many are waiting.
    public func notePlaceholder(relativePath: String, version: String, placeholder: String) {
        placeholders.withLock { queue in
            if queue.count < 10_000 { queue.append((relativePath, version, placeholder)) }
        }
    }

    /// Writes the waiting placeholders, each only if its row still has the version it was made from.
    public func flushPlaceholders() {
        let entries = placeholders.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
        guard !entries.isEmpty else { return }
        withWriter { db throws(SQLiteError) -> Void in
            try db.transaction { () throws(SQLiteError) -> Void in
                for e in entries {
                    try db.run("UPDATE photos SET placeholder = ? WHERE path = ? AND version = ?",
                               [.text(e.placeholder), .text(e.relativePath), .text(e.version)])
                }
            }
        }
    }

    /// Runs `body` with the write connection, first rebuilding the file when a reader found
    /// it damaged. nil when the write failed.
    @discardableResult
    func withWriter<T>(_ body: (SQLiteConnection) throws(SQLiteError) -> T) -> T? {
        writer.withLock { slot -> T? in
            guard var box = slot else { return nil }
            defer { slot = box }
            if damaged.exchange(false, ordering: .relaxed) { rebuild(&box, why: "a reader found it damaged") }
            do throws(SQLiteError) {
                return try body(box.connection)
            } catch {
                log("index: write failed: \(error)")
                if error.isDamage { rebuild(&box, why: "damaged (\(error))") }
                return nil
            }
        }
    }

    /// The writer replaces the file with a new empty one (`replaceWithEmpty`); the next
    /// indexing pass fills it again. A process that is not the writer leaves it to the writer.
    private func rebuild(_ box: inout ConnectionBox, why: String) {
        guard isWriter else {
            log("index: \(path) \(why); the indexing process repairs it")
            return
        }
        log("index: \(path) \(why); replacing it with a new index")
        readers.withLock { $0.removeAll() }
        guard Self.replaceWithEmpty(path, log: log), let fresh = Self.openChecked(path: path, repair: true, log: log) else { return }
        box = ConnectionBox(fresh, inode: Self.inode(path))
    }
}

/// A connection handed between threads under a lock (the pool, the writer's mutex): only the
/// holder uses it, which is the discipline SQLITE_OPEN_NOMUTEX asks for.
final class ConnectionBox: @unchecked Sendable {
    let connection: SQLiteConnection
    /// The inode of the file when the connection was opened.
    let inode: UInt64
    init(_ connection: SQLiteConnection, inode: UInt64) {
        self.connection = connection
        self.inode = inode
    }
}
