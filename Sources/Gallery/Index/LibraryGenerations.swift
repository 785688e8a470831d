import ImagePipeline

/// Generations: how processes that do not index learn what the indexing process changed
/// without scanning. Each indexing pass that changed something ends with one transaction that
/// counts the generation up (`meta`) and recomputes the rows of the albums it touched, each
/// stamped with that generation (an album whose photos are all gone keeps a row of 0 photos,
/// so its removal is seen too). A reader that last looked at generation G reads the albums of
/// a later generation, and only their photos.
///
/// Added to schema 3 files in place (a table and a column, `CREATE TABLE IF NOT EXISTS`,
/// `ALTER TABLE ... ADD COLUMN` with a default), by whichever process opens the file first;
/// a build that does not know them reads and writes the file as before.
extension LibraryIndex {
    static let generationSchema = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS albums_by_generation ON albums(generation);
        """

    static func hasGenerations(_ db: SQLiteConnection) throws(SQLiteError) -> Bool {
        let column = try db.scalar("SELECT count(*) FROM pragma_table_info('albums') WHERE name = 'generation'") ?? 0
        let table = try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'meta'") ?? 0
        return column > 0 && table > 0
    }

    /// Adds the column and the table; asked again under the write lock, since another process
    /// opening the file may have added them first.
    static func addGenerations(_ db: SQLiteConnection) throws(SQLiteError) {
        if try db.scalar("SELECT count(*) FROM pragma_table_info('albums') WHERE name = 'generation'") ?? 0 == 0 {
            try db.execute("ALTER TABLE albums ADD COLUMN generation INTEGER NOT NULL DEFAULT 0")
        }
        try db.execute(generationSchema)
    }

    /// The generation of the last indexing pass that changed something (0 before the first);
    /// nil when the index cannot be read.
    public func generation() -> Int? {
        read { db throws(SQLiteError) in try db.scalar("SELECT value FROM meta WHERE key = 'generation'") ?? 0 }
    }

    /// The albums (relative folder paths) a pass of a generation after `generation` changed,
    /// with their photo count now (0: every photo of it is gone); nil when unreadable.
    public func albumsChanged(since generation: Int) -> [(path: String, photos: Int)]? {
        read { db throws(SQLiteError) -> [(path: String, photos: Int)] in
            var out: [(path: String, photos: Int)] = []
            try db.run("SELECT path, photos FROM albums WHERE generation > ?", [.int(generation)]) { row in
                out.append((row.text(0) ?? "", row.int(1)))
            }
            return out
        }
    }

    /// The photos of one folder as the index lists them (as `listing` does for all): what a
    /// reader patches its catalog with. nil when unreadable.
    public func folderListing(_ folder: String) -> LibraryListing.Folder? {
        read { db throws(SQLiteError) -> LibraryListing.Folder in
            var out = LibraryListing.Folder()
            try db.run("SELECT name, size, mtime_s, mtime_ns, inode, sidecar FROM photos WHERE album = ? AND failure IS NULL",
                       [.text(folder)]) { row in
                let name = row.text(0) ?? ""
                out.images.append((name, FileStamp(size: row.int(1), mtimeSeconds: row.int(2), mtimeNanoseconds: row.int(3),
                                                   inode: UInt64(bitPattern: Int64(row.int(4))))))
                if let sidecar = row.text(5).flatMap(FileStamp.init(indexText:)) { out.sidecars[name] = sidecar }
            }
            return out
        }
    }

    /// Recomputes the rows of `folders` (counts, cover, date range) from their photos, in one
    /// transaction that counts the generation up and stamps them with it. Returns the new
    /// generation, nil when the write failed.
    @discardableResult
    func updateAlbums(_ folders: Set<String>) -> Int? {
        guard !folders.isEmpty else { return generation() }
        return withWriter { db throws(SQLiteError) -> Int in
            try db.transaction { () throws(SQLiteError) -> Int in
                try db.execute("INSERT INTO meta(key, value) VALUES('generation', 1) ON CONFLICT(key) DO UPDATE SET value = value + 1")
                let generation = try db.scalar("SELECT value FROM meta WHERE key = 'generation'") ?? 1
                for folder in folders.sorted() {
                    try db.run("""
                        INSERT INTO albums(path, photos, cover, first_taken, last_taken, generation)
                            SELECT ?1, count(*),
                                   (SELECT p2.path FROM photos p2 WHERE p2.album = ?1 AND p2.failure IS NULL
                                    ORDER BY p2.date_taken IS NULL, p2.date_taken, p2.name LIMIT 1),
                                   min(date_taken), max(date_taken), ?2
                            FROM photos WHERE album = ?1 AND failure IS NULL
                        ON CONFLICT(path) DO UPDATE SET photos = excluded.photos, cover = excluded.cover,
                            first_taken = excluded.first_taken, last_taken = excluded.last_taken, generation = excluded.generation
                        """, [.text(folder), .int(generation)])
                }
                return generation
            }
        }
    }
}
