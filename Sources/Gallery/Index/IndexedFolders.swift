import ImagePipeline

/// The index's folders read one at a time, for a catalog build that never holds every photo's
/// entry at once: `LibraryIndex.listing()` made one `LibraryListing` of the whole library
/// (about 48 bytes a photo in arrays, plus a dictionary entry a folder) before the catalog
/// was built beside it, so at a million photos the start's peak held both and malloc kept the
/// pages. Here the folder tree comes first (the `photos_by_album` index alone), then each
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
