import ImagePipeline

/// The index's tables, the columns each schema added, and the migration of older files.
extension LibraryIndex {
    static let schema = """
        CREATE TABLE photos(
            path TEXT PRIMARY KEY NOT NULL,
            album TEXT NOT NULL,
            name TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_s INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            version TEXT NOT NULL,
            width INTEGER,
            height INTEGER,
            pixels INTEGER,
            format TEXT,
            colour_space TEXT,
            date_taken TEXT,
            camera_make TEXT,
            camera_model TEXT,
            placeholder TEXT,
            failure TEXT,
            \((shotColumns + schema3Columns).joined(separator: ",\n    "))
        ) WITHOUT ROWID;
        \(folderListingIndex);
        CREATE TABLE albums(
            path TEXT PRIMARY KEY NOT NULL,
            photos INTEGER NOT NULL,
            cover TEXT,
            first_taken TEXT,
            last_taken TEXT,
            generation INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        \(searchSchema)
        \(generationSchema)
        """

    /// The columns schema 2 added (lens, exposure, GPS, the facts level), as in CREATE TABLE
    /// and, one by one, in ALTER TABLE when a schema 1 file is migrated.
    static let shotColumns = [
        "lens_make TEXT", "lens_model TEXT", "exposure_s REAL", "f_number REAL", "iso INTEGER", "focal_mm REAL",
        "focal_35mm INTEGER", "latitude REAL", "longitude REAL", "altitude REAL", "facts_level INTEGER NOT NULL DEFAULT 1",
    ]

    /// Movies' facts (`VideoFacts`), NULL for photos.
    static let videoColumns = [
        "duration_s REAL", "video_codec TEXT", "frame_rate REAL", "hdr TEXT", "content_id TEXT", "has_audio INTEGER",
    ]

    /// What people wrote (`PhotoText`); lists are one entry per line.
    static let textColumns = [
        "title TEXT", "caption TEXT", "keywords TEXT", "rating INTEGER", "label TEXT", "people TEXT", "places TEXT",
        "creator TEXT", "copyright TEXT",
    ]

    /// The columns schema 3 added: video facts, text, and the stamp of the sidecar read
    /// ("size mtime_s mtime_ns inode").
    static let schema3Columns = videoColumns + textColumns + ["sidecar TEXT"]

    static func names(_ columns: [String]) -> String {
        columns.map { String($0.prefix { $0 != " " }) }.joined(separator: ", ")
    }
    static var videoColumnNames: String { names(videoColumns) }
    static var textColumnNames: String { names(textColumns) }

    /// Older schemas → this one: the new columns, NULL in existing rows (whose facts level
    /// stays below the current one), so the file keeps serving while the indexer refreshes
    /// those rows. The version is read again under the write lock: another worker process
    /// opening the same file may have migrated it first.
    static func migrate(_ db: SQLiteConnection) throws(SQLiteError) {
        try db.transaction { () throws(SQLiteError) in
            let version = try db.scalar("PRAGMA user_version") ?? 0
            guard version < schemaVersion else { return }
            if version < 2 {
                for column in shotColumns { try db.execute("ALTER TABLE photos ADD COLUMN \(column)") }
            }
            if version < 3 {
                for column in schema3Columns { try db.execute("ALTER TABLE photos ADD COLUMN \(column)") }
            }
            try addSearchTables(db)
            try db.execute("PRAGMA user_version=\(schemaVersion)")
        }
    }

    /// A still's row holds only its content identifier (a Live Photo's still) of these.
    static func videoValues(_ video: VideoFacts?, contentIdentifier: String?) -> [SQLValue] {
        guard let v = video else {
            var values = [SQLValue](repeating: .null, count: videoColumns.count)
            values[4] = .optional(contentIdentifier)
            return values
        }
        return [.optional(v.durationSeconds), .text(v.codec), .optional(v.frameRate), .optional(v.hdr),
                .optional(v.contentIdentifier), .int(v.hasAudio ? 1 : 0)]
    }

    static func video(_ row: SQLRow, from first: Int32) -> VideoFacts? {
        guard let duration = row.double(first), let codec = row.text(first + 1) else { return nil }
        return VideoFacts(durationSeconds: duration, codec: codec, frameRate: row.double(first + 2), hdr: row.text(first + 3),
                          contentIdentifier: row.text(first + 4), hasAudio: row.int(first + 5) != 0)
    }

    static func textValues(_ text: PhotoText?) -> [SQLValue] {
        let t = text ?? PhotoText()
        func lines(_ list: [String]) -> SQLValue { list.isEmpty ? .null : .text(list.joined(separator: "\n")) }
        return [.optional(t.title), .optional(t.caption), lines(t.keywords), .optional(t.rating), .optional(t.label),
                lines(t.people), lines(t.places), .optional(t.creator), .optional(t.copyright)]
    }

    static func text(_ row: SQLRow, from first: Int32) -> PhotoText {
        func lines(_ column: Int32) -> [String] {
            row.text(column).map { $0.split(separator: "\n").map(String.init) } ?? []
        }
        return PhotoText(title: row.text(first), caption: row.text(first + 1), keywords: lines(first + 2),
                         rating: row.optionalInt(first + 3), label: row.text(first + 4), people: lines(first + 5),
                         places: lines(first + 6), creator: row.text(first + 7), copyright: row.text(first + 8))
    }
}

extension FileStamp {
    /// "size mtime_s mtime_ns inode", as the index's `sidecar` column keeps a stamp.
    var indexText: String { "\(size) \(mtimeSeconds) \(mtimeNanoseconds) \(inode)" }

    init?(indexText: String) {
        let parts = indexText.split(separator: " ")
        guard parts.count == 4, let size = Int(parts[0]), let s = Int(parts[1]), let ns = Int(parts[2]),
              let inode = UInt64(parts[3]) else { return nil }
        self.init(size: size, mtimeSeconds: s, mtimeNanoseconds: ns, inode: inode)
    }
}
