/// Which library the index's rows are of: `meta` keeps a hash of the library root's real path,
/// written by the writer once a pass compared the rows with that folder. A server started on
/// another folder with the same cache directory (`deploy/run` on the demo, then on your own
/// photos) used to build its first catalog from the other library's rows, and the removal guard
/// then held the new folder back as if the old library's mount had come up empty. Now an index
/// of another path counts as no index for the start (the folder is scanned) and the writer's
/// first pass replaces its rows. The same path is the same library: an empty mount keeps its
/// rows (the guard). A file from before the mark, or an empty one, is taken as this library's.
extension LibraryIndex {
    static func rootKey(_ realRoot: String) -> Int {
        var hash = FNV1a()
        hash.add(realRoot)
        return Int(truncatingIfNeeded: hash.value)
    }

    /// Whether the rows are of the library at `realRoot` (or the index does not say).
    public func holdsLibrary(at realRoot: String) -> Bool {
        let mark = read { db throws(SQLiteError) in try db.scalar("SELECT value FROM meta WHERE key = 'root'") } ?? nil
        return mark.map { $0 == Self.rootKey(realRoot) } ?? true
    }

    /// Marks the rows as those of the library at `realRoot` (the writer, after a pass compared
    /// them with that folder). True when the mark is written.
    @discardableResult
    public func markLibrary(at realRoot: String) -> Bool {
        guard isWriter else { return false }
        return withWriter { db throws(SQLiteError) -> Bool in
            try db.execute("INSERT INTO meta(key, value) VALUES('root', \(Self.rootKey(realRoot))) "
                           + "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            return true
        } ?? false
    }
}
