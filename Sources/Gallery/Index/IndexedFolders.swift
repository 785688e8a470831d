import ImagePipeline

/// The index's folders read one at a time, for a catalog build that never holds every photo's
/// entry at once: `LibraryIndex.listing()` made one `LibraryListing` of the whole library
/// (about 48 bytes a photo in arrays, plus a dictionary entry a folder) before the catalog
/// was built beside it, so at a million photos the start's peak held both and malloc kept the
/// pages. Here the folder tree comes first (the album index alone), then each
/// folder's photos are read when the build reaches it, all in one read transaction, so the
/// catalog is of one state of the file even while the writer commits.
public struct IndexedFolders {
    /// The names of the subfolders of each folder that has photos or lies between the root
    /// and one ("" is the root, always present).
    public let subfolders: [String: [String]]
    /// About how many photos the index holds (from the albums' counts; 0 when unknown): how
    /// big to make the tables at once.
    public let expectedPhotos: Int
    let db: SQLiteConnection
    /// The first read that failed (the caller then has no catalog from the index).
    private(set) var failure: SQLiteError?
    /// Photos read so far.
    private(set) var photosRead = 0

    /// The photos of `folder` (as `folderListing`); empty once a read has failed.
    public mutating func photos(of folder: String) -> LibraryListing.Folder {
        var out = LibraryListing.Folder()
        guard failure == nil else { return out }
        do {
            try db.run("SELECT name, size, mtime_s, mtime_ns, inode, sidecar FROM photos WHERE album = ? AND failure IS NULL",
                       [.text(folder)]) { row in
                let name = row.text(0) ?? ""
                out.images.append((name, FileStamp(size: row.int(1), mtimeSeconds: row.int(2), mtimeNanoseconds: row.int(3),
                                                   inode: UInt64(bitPattern: Int64(row.int(4))))))
                if let sidecar = row.text(5).flatMap(FileStamp.init(indexText:)) { out.sidecars[name] = sidecar }
            }
        } catch {
            failure = error
            return LibraryListing.Folder()
        }
        photosRead += out.images.count
        return out
    }
}

extension LibraryIndex {
    /// The index a folder's listing is read from alone (`photos(of:)`'s columns after the
    /// album and name): without it each row was looked up in the table by path (rows of about
    /// 700 bytes spread over the file), about 10 % of a start at a million photos. It replaces
    /// `photos_by_album(album, name)`, which is its prefix.
    static let folderListingIndex =
        "CREATE INDEX IF NOT EXISTS photos_by_folder ON photos(album, name, size, mtime_s, mtime_ns, inode, failure, sidecar)"

    /// Whether the file has `folderListingIndex` (files made before it have `photos_by_album`).
    public var coversFolderListings: Bool {
        read { db throws(SQLiteError) in
            try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'photos_by_folder'") ?? 0 > 0
        } ?? false
    }

    /// Gives a file made before `folderListingIndex` that index in place of `photos_by_album`
    /// (the writer only, once: about 2 s and 9 MB at a million photos, under the write lock,
    /// so the writer's background walk does it rather than the start). True when it did.
    @discardableResult
    public func coverFolderListings() -> Bool {
        guard isWriter, !coversFolderListings else { return false }
        return withWriter { db throws(SQLiteError) -> Bool in
            try db.transaction { () throws(SQLiteError) -> Bool in
                // Asked again under the write lock: another process may have done it.
                guard try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'photos_by_folder'") ?? 0 == 0
                else { return false }
                // Dropped first, so the new index reuses the old one's pages (the file grows
                // by the difference, 9 MB at a million photos, not by the whole index).
                try db.execute("DROP INDEX IF EXISTS photos_by_album; " + Self.folderListingIndex)
                return true
            }
        } ?? false
    }

    /// Runs `body` with the index's folders (`IndexedFolders`) inside one read transaction;
    /// nil when the index cannot be read, a read in `body` failed (logged), or `body` read no
    /// photo (an empty index: as `listing()`, the caller then scans).
    public func readFolders<T>(_ body: (inout IndexedFolders) -> T) -> T? {
        let result = read { db throws(SQLiteError) -> T? in
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            var tree: [String: [String]] = ["": []]
            var linked = Set<String>()
            try db.run("SELECT DISTINCT album FROM photos") { row in
                var child = row.text(0) ?? ""
                // Each folder between the root and this one, listed in its parent once.
                while !child.isEmpty, linked.insert(child).inserted {
                    if tree[child] == nil { tree[child] = [] }
                    let cut = child.lastIndex(of: "/")
                    let parent = cut.map { String(child[..<$0]) } ?? ""
                    tree[parent, default: []].append(cut.map { String(child[child.index(after: $0)...]) } ?? child)
                    child = parent
                }
            }
            let expected = (try? db.scalar("SELECT sum(photos) FROM albums")) ?? 0
            var folders = IndexedFolders(subfolders: tree, expectedPhotos: expected, db: db)
            let result = body(&folders)
            if let failure = folders.failure { throw failure }
            return folders.photosRead > 0 ? result : nil
        }
        return result ?? nil
    }
}
