import Foundation
import ImagePipeline
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The index's queries of photos and folders: what the catalog, the follower and the pages
/// read, each on a pooled reader connection (`read`), any thread.
extension LibraryIndex {
    static let photoColumns = """
        path, size, mtime_s, mtime_ns, inode, version, width, height, pixels, format, colour_space, date_taken, \
        camera_make, camera_model, placeholder, failure, lens_make, lens_model, exposure_s, f_number, iso, focal_mm, \
        focal_35mm, latitude, longitude, altitude, facts_level, \(videoColumnNames), \(textColumnNames), sidecar
        """

    static func photo(_ row: SQLRow) -> IndexedPhoto {
        let stamp = FileStamp(size: row.int(1), mtimeSeconds: row.int(2), mtimeNanoseconds: row.int(3), inode: UInt64(bitPattern: Int64(row.int(4))))
        var facts: ImageFacts?
        if let width = row.optionalInt(6), let height = row.optionalInt(7), let format = row.text(9) {
            let shot = ShotFacts(lensMake: row.text(16), lensModel: row.text(17), exposureSeconds: row.double(18), fNumber: row.double(19),
                                 iso: row.optionalInt(20), focalLength: row.double(21), focalLength35mm: row.optionalInt(22))
            var location: PhotoLocation?
            if let latitude = row.double(23), let longitude = row.double(24) {
                location = PhotoLocation(latitude: latitude, longitude: longitude, altitude: row.double(25))
            }
            facts = ImageFacts(width: width, height: height, pixelCount: row.optionalInt(8) ?? width * height, format: format,
                               dateTaken: row.text(11), cameraMake: row.text(12), cameraModel: row.text(13), colourSpace: row.text(10),
                               shot: shot, location: location, video: video(row, from: 27), text: text(row, from: 33),
                               contentIdentifier: row.text(31))
        }
        return IndexedPhoto(relativePath: row.text(0) ?? "", stamp: stamp, version: row.text(5) ?? "", facts: facts,
                            placeholder: row.text(14), failure: row.text(15), sidecar: row.text(42).flatMap(FileStamp.init(indexText:)))
    }

    /// The rows of these relative paths (those the index has).
    public func photos(_ relativePaths: [String]) -> [String: IndexedPhoto] {
        guard !relativePaths.isEmpty else { return [:] }
        return read { db throws(SQLiteError) -> [String: IndexedPhoto] in
            var out: [String: IndexedPhoto] = [:]
            for path in relativePaths {
                try db.run("SELECT \(Self.photoColumns) FROM photos WHERE path = ?", [.text(path)]) { row in
                    out[path] = Self.photo(row)
                }
            }
            return out
        } ?? [:]
    }

    /// Dates taken of the photos in one folder, by file name (photos without one left out).
    public func datesTaken(folder: String) -> [String: String] {
        texts(of: "date_taken", folder: folder)
    }

    /// Apple content identifiers of the stills and movies in one folder, by file name.
    public func contentIdentifiers(folder: String) -> [String: String] {
        texts(of: "content_id", folder: folder)
    }

    /// One text column of the photos in one folder, by file name (rows where it is NULL left
    /// out). `column` is one of ours, never caller text.
    private func texts(of column: String, folder: String) -> [String: String] {
        read { db throws(SQLiteError) -> [String: String] in
            var out: [String: String] = [:]
            try db.run("SELECT name, \(column) FROM photos WHERE album = ? AND \(column) IS NOT NULL", [.text(folder)]) { row in
                if let name = row.text(0), let value = row.text(1) { out[name] = value }
            }
            return out
        } ?? [:]
    }

    /// What the indexer compares with a scan: a row's stamp, and whether its facts are of
    /// this build's level (a row of a lower one is read again).
    struct RowStamp: Equatable {
        var stamp: FileStamp
        var current: Bool
        /// The stamp of the sidecar whose text the row holds.
        var sidecar: FileStamp?
    }

    /// Stamps of the photos in one folder, by file name.
    func stamps(folder: String) -> [String: RowStamp]? {
        read { db throws(SQLiteError) -> [String: RowStamp] in
            var out: [String: RowStamp] = [:]
            try db.run("SELECT name, size, mtime_s, mtime_ns, inode, facts_level, sidecar, camera_make = 'Apple' AND video_codec IS NULL "
                       + "FROM photos WHERE album = ?", [.text(folder)]) { row in
                let stamp = FileStamp(size: row.int(1), mtimeSeconds: row.int(2), mtimeNanoseconds: row.int(3),
                                      inode: UInt64(bitPattern: Int64(row.int(4))))
                // Level 4 only added the content identifier of Apple stills: other rows of level 3
                // are current, so an upgrade re-reads the iPhone photos, not the library.
                let level = row.int(5)
                let current = level >= Self.factsLevel || (level == 3 && row.int(7) == 0)
                out[row.text(0) ?? ""] = RowStamp(stamp: stamp, current: current,
                                                  sidecar: row.text(6).flatMap(FileStamp.init(indexText:)))
            }
            return out
        }
    }

    /// Folders with rows whose facts `stamps(folder:)` judges not current (an older build read
    /// them): the rows the indexer reads again after an upgrade, found in one pass over the
    /// table instead of comparing every album. Empty at once when `meta` says every row is of
    /// this build's level (`markFactsCurrent`): the pass costs 0.2 s of CPU at a million photos.
    func foldersWithOlderFacts() -> Set<String>? {
        read { db throws(SQLiteError) -> Set<String> in
            guard try db.scalar("SELECT value FROM meta WHERE key = 'facts_level'") != Self.factsLevel else { return [] }
            return try Self.foldersWithOlderFacts(db)
        }
    }

    private static func foldersWithOlderFacts(_ db: SQLiteConnection) throws(SQLiteError) -> Set<String> {
        var out = Set<String>()
        try db.run("SELECT DISTINCT album FROM photos WHERE facts_level < ? AND (facts_level != 3 "
                   + "OR coalesce(camera_make = 'Apple' AND video_codec IS NULL, 0))", [.int(factsLevel)]) { row in
            out.insert(row.text(0) ?? "")
        }
        return out
    }

    /// Records in `meta` that every row is of this build's level, when it is so (asked again
    /// under the write lock), so later starts skip the pass. Only this build's writers read
    /// the mark: an older build writing rows after it (two versions on one index at once) is
    /// not caught until those rows change. True when the mark is set.
    @discardableResult
    func markFactsCurrent() -> Bool {
        guard isWriter else { return false }
        return withWriter { db throws(SQLiteError) -> Bool in
            if try db.scalar("SELECT value FROM meta WHERE key = 'facts_level'") == Self.factsLevel { return true }
            guard try Self.foldersWithOlderFacts(db).isEmpty else { return false }
            try db.execute("INSERT INTO meta(key, value) VALUES('facts_level', \(Self.factsLevel)) "
                           + "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            return true
        } ?? false
    }

    /// Folders that hold at least one indexed photo.
    func folders() -> Set<String>? {
        read { db throws(SQLiteError) -> Set<String> in
            var out = Set<String>()
            try db.run("SELECT DISTINCT album FROM photos") { row in out.insert(row.text(0) ?? "") }
            return out
        }
    }

    /// Which of `candidates` hold at least one indexed photo.
    func folders(among candidates: Set<String>) -> Set<String>? {
        read { db throws(SQLiteError) -> Set<String> in
            var out = Set<String>()
            for folder in candidates where try db.scalar("SELECT EXISTS(SELECT 1 FROM photos WHERE album = ?)", [.text(folder)]) ?? 0 > 0 {
                out.insert(folder)
            }
            return out
        }
    }

    /// Photos in the index.
    public func photoCount() -> Int {
        read { db throws(SQLiteError) in try db.scalar("SELECT count(*) FROM photos") ?? 0 } ?? 0
    }

    /// Every folder and photo, for the catalog served at start; nil when the index is empty.
    public func listing() -> LibraryListing? {
        guard let listing = read({ db throws(SQLiteError) -> LibraryListing in
            var listing = LibraryListing()
            listing.folders[""] = LibraryListing.Folder()
            // Rows mostly come folder by folder (the indexer writes a folder's photos together):
            // they gather in `current` and go into the dictionary when the folder changes, not
            // with a lookup each.
            var album = ""
            var current = LibraryListing.Folder()
            func flush() {
                guard !current.images.isEmpty else { return }
                if listing.folders[album] == nil {
                    listing.folders[album] = current
                } else {
                    listing.folders[album]!.images += current.images
                    listing.folders[album]!.sidecars.merge(current.sidecars) { $1 }
                }
                current = LibraryListing.Folder()
            }
            try db.run("SELECT album, name, size, mtime_s, mtime_ns, inode, sidecar FROM photos WHERE failure IS NULL") { row in
                let rowAlbum = row.text(0) ?? ""
                if rowAlbum != album {
                    flush()
                    album = rowAlbum
                }
                let stamp = FileStamp(size: row.int(2), mtimeSeconds: row.int(3), mtimeNanoseconds: row.int(4),
                                      inode: UInt64(bitPattern: Int64(row.int(5))))
                let name = row.text(1) ?? ""
                current.images.append((name, stamp))
                if let sidecar = row.text(6).flatMap(FileStamp.init(indexText:)) { current.sidecars[name] = sidecar }
                listing.photoCount += 1
            }
            flush()
            // Each folder between the root and a photo's folder, listed in its parent once.
            var linked = Set<String>()
            for folder in Array(listing.folders.keys) {
                var child = folder
                while !child.isEmpty, linked.insert(child).inserted {
                    let cut = child.lastIndex(of: "/")
                    let parent = cut.map { String(child[..<$0]) } ?? ""
                    let name = cut.map { String(child[child.index(after: $0)...]) } ?? child
                    listing.folders[parent, default: LibraryListing.Folder()].subfolders.append(name)
                    child = parent
                }
            }
            return listing
        }), listing.photoCount > 0 else { return nil }
        return listing
    }
}
