/// The search tables of the index: an FTS5 table of the words people search for, kept in
/// step with `photos` by triggers (so every writer, the indexer's puts and deletes alike,
/// updates it in the same transaction as the row), and the indexes the date and map queries use.
///
/// `photos` is a WITHOUT ROWID table keyed by path, while FTS5 rows are keyed by an integer:
/// `search_rows` gives each path a stable integer (the FTS rowid), so a row is found and
/// replaced by key instead of by a scan of the FTS table.
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
    static let searchedPhotoColumns = "title, caption, keywords, people, places, camera_make, camera_model, name, album, creator"

    /// `unicode61 remove_diacritics 2`: case and accents fold ("Zürich" is found by "zurich");
    /// prefix indexes of 2 and 3 characters make the last word's prefix query (`be*`) cheap.
    static var searchSchema: String {
        let names = searchColumnNames.joined(separator: ", ")
        let rowID = "(SELECT id FROM search_rows WHERE path = new.path)"
        // Not INSERT OR IGNORE: the conflict policy of the statement firing a trigger overrides
        // the trigger's own, so under the indexer's upsert a duplicate would abort the write.
        let refill = """
            INSERT INTO search_rows(path) SELECT new.path WHERE NOT EXISTS (SELECT 1 FROM search_rows WHERE path = new.path);
                DELETE FROM photos_fts WHERE rowid = \(rowID);
                INSERT INTO photos_fts(rowid, \(names)) VALUES (\(rowID), \(searchValues("new")));
            """
        return """
            CREATE TABLE IF NOT EXISTS search_rows(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL);
            CREATE VIRTUAL TABLE IF NOT EXISTS photos_fts USING fts5(\(names), tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
            CREATE TRIGGER IF NOT EXISTS photos_search_insert AFTER INSERT ON photos BEGIN
                \(refill)
            END;
            CREATE TRIGGER IF NOT EXISTS photos_search_update AFTER UPDATE OF \(searchedPhotoColumns) ON photos BEGIN
                \(refill)
            END;
            CREATE TRIGGER IF NOT EXISTS photos_search_delete AFTER DELETE ON photos BEGIN
                DELETE FROM photos_fts WHERE rowid = (SELECT id FROM search_rows WHERE path = old.path);
                DELETE FROM search_rows WHERE path = old.path;
            END;
            CREATE INDEX IF NOT EXISTS photos_by_date ON photos(date_taken);
            CREATE INDEX IF NOT EXISTS photos_by_day ON photos(substr(date_taken, 6, 5));
            CREATE INDEX IF NOT EXISTS photos_by_position ON photos(latitude, longitude) WHERE latitude IS NOT NULL;
            """
    }

    /// Adds the search tables to a file made before them (schema 1 and 2, or a schema 3 file
    /// written by a build without search) and fills the FTS table from the rows it holds.
    /// Call inside a write transaction.
    static func addSearchTables(_ db: SQLiteConnection) throws(SQLiteError) {
        guard try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'photos_fts'") == 0 else { return }
        try db.execute(searchSchema)
        let names = searchColumnNames.joined(separator: ", ")
        try db.execute("""
            INSERT OR IGNORE INTO search_rows(path) SELECT path FROM photos;
            INSERT INTO photos_fts(rowid, \(names)) SELECT s.id, \(searchValues("p")) FROM photos p JOIN search_rows s ON s.path = p.path;
            """)
    }

    /// Whether the file has the search tables (checked at open: a schema 3 file written before
    /// them gets them then).
    static func hasSearchTables(_ db: SQLiteConnection) throws(SQLiteError) -> Bool {
        try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'photos_fts'") ?? 0 > 0
    }
}
