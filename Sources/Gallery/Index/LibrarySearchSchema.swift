import ImagePipeline

/// The search tables of the index: an FTS5 table of the words people search for and a table of
/// map cells, both kept in step with `photos` by triggers (so every writer, the indexer's puts
/// and deletes alike, updates them in the same transaction as the row), and the indexes the
/// date queries use.
///
/// `photos` is a WITHOUT ROWID table keyed by path, while FTS5 rows are keyed by an integer:
/// `search_rows` gives each path an integer (the FTS rowid), so a row is found and replaced by
/// key instead of by a scan of the FTS table. That integer sorts like the date taken
/// (`dateRowID`): "newest first" is "rowid descending", which FTS5 and the rowid B-tree walk
/// in order, so a page of results stops after its rows instead of sorting every match.
extension LibraryIndex {
    /// The FTS5 columns, named as the query language's prefixes (`keyword:` searches `keyword`).
    /// Lists (keywords, people, places) are one entry per line; the tokenizer splits lines.
    static let searchColumnNames = ["title", "caption", "keyword", "person", "place", "camera", "file", "album", "creator"]

    /// What each FTS column holds, as SQL over the `photos` row named `row` (`new` in triggers).
    static func searchValues(_ row: String) -> String {
        ["\(row).title", "\(row).caption", "\(row).keywords", "\(row).people", "\(row).places",
         "coalesce(\(row).camera_make, '') || ' ' || coalesce(\(row).camera_model, '')", "\(row).name", "\(row).album",
         "\(row).creator"].joined(separator: ", ")
    }

    /// Photo columns whose change rewrites the photo's FTS row (a placeholder update does not).
    ///     /// The date decides the row's id, the name and format its kind.
    static let searchedPhotoColumns = "title, caption, keywords, people, places, camera_make, camera_model, name, album, creator, date_taken, format"

    /// `search_rows.kind`: what `type:video` and `type:animated` find through the index
    /// `search_rows_by_kind` (in id order, so newest first without a sort); NULL for the rest.
    enum Kind: Int {
        case movie = 1
        case animation = 2
    }

    /// The kind of `row` as SQL: a movie by file name (as `ImageFiles.isMovie`, the grid's
    /// badge), an animation by format (as `GalleryApp.isAnimation`).
    static func kindOf(_ row: String) -> String {
        let movie = ImageFiles.movieExtensions.map { "\(row).name LIKE '%\($0)'" }.joined(separator: " OR ")
        return "CASE WHEN \(movie) THEN \(Kind.movie.rawValue) WHEN \(row).format LIKE 'GIF, % frames' THEN \(Kind.animation.rawValue) END"
    }

    /// Ids a second of date taken has room for: a row's id is its date as the integer
    /// YYYYMMDDhhmmss shifted left by this many bits, plus its place among the photos of that
    /// second (in the order they were written). Years 1000-2999 fit in 63 bits.
    static let slotBits = 18
    /// The first id of dated rows; ids below it (from 1) are the rows without a usable date,
    /// which "newest first" lists last.
    static let firstDatedID = 10_000_000_000_000 << slotBits

    /// The id range of `text` (a date text "YYYY:MM:DD…" or a prefix of one, as `SearchQuery`
    /// makes them: "2024:07", "2024:13"): its digits, padded to YYYYMMDDhhmmss, shifted.
    /// Comparing these is comparing the texts for the dates the index keys by date.
    static func dateRowID(_ text: String) -> Int {
        var digits = text.utf8.filter { $0 >= 0x30 && $0 <= 0x39 }.prefix(14).reduce(0) { $0 * 10 + Int($1 - 0x30) }
        for _ in text.utf8.filter({ $0 >= 0x30 && $0 <= 0x39 }).prefix(14).count..<14 { digits *= 10 }
        return min(max(digits, 10_000_000_000_000), 30_000_000_000_000) << slotBits
    }

    /// SQL for the first id of the slot of a row's date (`row.date_taken`): the second's key for
    /// a full date, the day's for a date alone, 1 (the undated range) for anything else,
    /// including the zero dates some cameras write.
    static func slotStart(_ row: String) -> String {
        let d = "\(row).date_taken"
        let year = "[12][0-9][0-9][0-9]:[0-1][0-9]:[0-3][0-9]"
        return """
            CASE WHEN \(d) GLOB '\(year) [0-2][0-9]:[0-5][0-9]:[0-6][0-9]*' \
            THEN CAST(substr(\(d), 1, 4) || substr(\(d), 6, 2) || substr(\(d), 9, 2) || substr(\(d), 12, 2) || substr(\(d), 15, 2) \
            || substr(\(d), 18, 2) AS INTEGER) << \(slotBits) \
            WHEN \(d) GLOB '\(year)*' \
            THEN CAST(substr(\(d), 1, 4) || substr(\(d), 6, 2) || substr(\(d), 9, 2) AS INTEGER) * 1000000 << \(slotBits) \
            ELSE 1 END
            """
    }

    /// Inserts `row`'s path into `search_rows` with the next free id of its date's slot. A full
    /// slot (more photos in one second than it holds) or the undated range continues after the
    /// last undated id: the row is then listed among the undated, never refused.
    static func insertSearchRow(_ row: String) -> String {
        let slotEnd = "CASE WHEN lo = 1 THEN \(firstDatedID - 1) ELSE lo + \((1 << slotBits) - 1) END"
        return """
            INSERT INTO search_rows(id, path, kind) SELECT CASE WHEN next <= hi THEN next ELSE \
            (SELECT coalesce(max(id), 0) + 1 FROM search_rows WHERE id < \(firstDatedID)) END, \(row).path, \(kindOf(row)) \
            FROM (SELECT hi, (SELECT coalesce(max(id), lo - 1) + 1 FROM search_rows WHERE id BETWEEN lo AND hi) AS next \
            FROM (SELECT lo, \(slotEnd) AS hi FROM (SELECT \(slotStart(row)) AS lo)));
            """
    }

    /// Zoom levels whose map cells are kept (`map_cells`): up to 12, a cell is 90 / 2^zoom
    /// degrees (about 64 screen pixels, 2.4 km at 12); above it a box is small enough to group
    /// its photos directly.
    static let maxCellZoom = 12

    /// The cell column and row of `row`'s position at each kept zoom (columns zoom, album, cx,
    /// cy, lat, lon), as what follows SELECT, with `zooms` the table of zoom levels; `placed`
    /// is the condition for a photo that has cells (placed and readable).
    static func cellColumns(_ row: String) -> String {
        let cell = "(90.0 / (1 << zooms.column1))"
        return """
            zooms.column1 AS zoom, \(row).album AS album, CAST((\(row).longitude + 180) / \(cell) AS INTEGER) AS cx, \
            CAST((\(row).latitude + 90) / \(cell) AS INTEGER) AS cy, \(row).latitude AS lat, \(row).longitude AS lon
            """
    }

    static var zooms: String { "(VALUES " + (0...maxCellZoom).map { "(\($0))" }.joined(separator: ", ") + ") zooms" }

    static func placed(_ row: String) -> String {
        "\(row).latitude IS NOT NULL AND \(row).longitude IS NOT NULL AND \(row).failure IS NULL"
    }

    /// The cell column of `row`'s position at zoom `z`, as `cellColumns` computes it.
    static func cellX(_ row: String, _ z: Int) -> String { "CAST((\(row).longitude + 180) / (90.0 / (1 << \(z))) AS INTEGER)" }
    static func cellY(_ row: String, _ z: Int) -> String { "CAST((\(row).latitude + 90) / (90.0 / (1 << \(z))) AS INTEGER)" }

    /// The key of `row`'s cell at zoom `z`.
    static func cellKey(_ row: String, _ z: Int) -> String {
        "zoom = \(z) AND album = \(row).album AND cx = \(cellX(row, z)) AND cy = \(cellY(row, z))"
    }

    static var searchSchema: String {
        let names = searchColumnNames.joined(separator: ", ")
        let rowID = "(SELECT id FROM search_rows WHERE path = new.path)"
        let drop = """
            DELETE FROM photos_fts WHERE rowid = (SELECT id FROM search_rows WHERE path = old.path);
                DELETE FROM search_rows WHERE path = old.path;
            """
        let add = """
            \(insertSearchRow("new"))
                INSERT INTO photos_fts(rowid, \(names)) VALUES (\(rowID), \(searchValues("new")));
            """
        // One statement per zoom, each naming its cell's whole key, so each is one B-tree seek.
        // No upsert: the conflict policy of the statement firing a trigger overrides the trigger's.
        let cellsIn = (0...maxCellZoom).map { z in
            """
            INSERT INTO map_cells(zoom, album, cx, cy, n, lat, lon) SELECT \(z), new.album, \(cellX("new", z)), \(cellY("new", z)), 0, 0, 0
                    WHERE \(placed("new")) AND NOT EXISTS (SELECT 1 FROM map_cells WHERE \(cellKey("new", z)));
                UPDATE map_cells SET n = n + 1, lat = lat + new.latitude, lon = lon + new.longitude WHERE \(placed("new")) AND \(cellKey("new", z));
            """
        }.joined(separator: "\n    ")
        let cellsOut = (0...maxCellZoom).map { z in
            """
            UPDATE map_cells SET n = n - 1, lat = lat - old.latitude, lon = lon - old.longitude WHERE \(placed("old")) AND \(cellKey("old", z));
                DELETE FROM map_cells WHERE \(cellKey("old", z)) AND n <= 0;
            """
        }.joined(separator: "\n    ")
        return """
            CREATE TABLE IF NOT EXISTS search_rows(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, kind INTEGER);
            CREATE INDEX IF NOT EXISTS search_rows_by_kind ON search_rows(kind, id) WHERE kind IS NOT NULL;
            CREATE VIRTUAL TABLE IF NOT EXISTS photos_fts USING fts5(\(names), tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
            CREATE TABLE IF NOT EXISTS map_cells(zoom INTEGER NOT NULL, album TEXT NOT NULL, cx INTEGER NOT NULL, cy INTEGER NOT NULL,
                n INTEGER NOT NULL, lat REAL NOT NULL, lon REAL NOT NULL, PRIMARY KEY (zoom, album, cx, cy)) WITHOUT ROWID;
            CREATE TRIGGER IF NOT EXISTS photos_search_insert AFTER INSERT ON photos BEGIN
                \(add)
            END;
            CREATE TRIGGER IF NOT EXISTS photos_search_update AFTER UPDATE OF \(searchedPhotoColumns) ON photos BEGIN
                \(drop)
                \(add)
            END;
            CREATE TRIGGER IF NOT EXISTS photos_search_delete AFTER DELETE ON photos BEGIN
                \(drop)
            END;
            CREATE TRIGGER IF NOT EXISTS photos_cells_insert AFTER INSERT ON photos BEGIN
                \(cellsIn)
            END;
            CREATE TRIGGER IF NOT EXISTS photos_cells_update AFTER UPDATE OF latitude, longitude, album, failure ON photos
                WHEN old.latitude IS NOT new.latitude OR old.longitude IS NOT new.longitude OR old.album IS NOT new.album
                    OR (old.failure IS NULL) IS NOT (new.failure IS NULL) BEGIN
                \(cellsOut)
                \(cellsIn)
            END;
            CREATE TRIGGER IF NOT EXISTS photos_cells_delete AFTER DELETE ON photos BEGIN
                \(cellsOut)
            END;
            CREATE INDEX IF NOT EXISTS photos_by_date ON photos(date_taken);
            CREATE INDEX IF NOT EXISTS photos_by_day ON photos(substr(date_taken, 6, 5));
            CREATE INDEX IF NOT EXISTS photos_by_position ON photos(latitude, longitude) WHERE latitude IS NOT NULL;
            """
    }

    /// The objects `searchSchema` makes that a file of an older layout may lack.
    static let searchObjects = ["photos_fts", "search_rows", "map_cells", "photos_search_insert", "photos_search_update",
                                "photos_search_delete", "photos_cells_insert", "photos_cells_update", "photos_cells_delete", "photos_by_day", "search_rows_by_kind"]

    /// Gives a file made before the search tables (schema 1 and 2), or before their present
    /// layout (ids in date order, map cells), the tables, and fills them from the rows it holds.
    /// Call inside a write transaction.
    static func addSearchTables(_ db: SQLiteConnection) throws(SQLiteError) {
        guard try !hasSearchTables(db) else { return }
        try db.execute("""
            DROP TRIGGER IF EXISTS photos_search_insert; DROP TRIGGER IF EXISTS photos_search_update;
            DROP TRIGGER IF EXISTS photos_search_delete; DROP TRIGGER IF EXISTS photos_cells_insert;
            DROP TRIGGER IF EXISTS photos_cells_update; DROP TRIGGER IF EXISTS photos_cells_delete;
            DROP TABLE IF EXISTS photos_fts; DROP TABLE IF EXISTS search_rows; DROP TABLE IF EXISTS map_cells;
            """)
        try db.execute(searchSchema)
        // Through the update trigger: each row gets its id by the same rule as a new one.
        try db.execute("UPDATE photos SET name = name")
        try db.execute("""
            INSERT INTO map_cells(zoom, album, cx, cy, n, lat, lon)
                SELECT zoom, album, cx, cy, count(*), sum(lat), sum(lon)
                FROM (SELECT \(cellColumns("p")) FROM photos p, \(zooms) WHERE \(placed("p"))) GROUP BY zoom, album, cx, cy
            """)
    }

    /// Whether the file has the search tables in their present layout (checked at open: a
    /// schema 3 file written before them gets them then).
    static func hasSearchTables(_ db: SQLiteConnection) throws(SQLiteError) -> Bool {
        let list = searchObjects.map { "'\($0)'" }.joined(separator: ", ")
        return try db.scalar("SELECT count(*) FROM sqlite_master WHERE name IN (\(list))") ?? 0 == searchObjects.count
    }
}
