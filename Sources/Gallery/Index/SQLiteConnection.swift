import CSQLite

/// A failed SQLite call: the result code and sqlite's message.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    /// The file is damaged or not a database at all: the index is deleted and built again.
    var isDamage: Bool {
        let primary = code & 0xff
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
    }

    var description: String { "sqlite \(code): \(message)" }
}

/// A value bound to a statement parameter.
enum SQLValue {
    case int(Int)
    case real(Double)
    case text(String)
    case null

    static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
    static func optional(_ number: Int?) -> SQLValue { number.map(SQLValue.int) ?? .null }
    /// A finite number, else NULL (SQLite would store a NaN as NULL anyway).
    static func optional(_ number: Double?) -> SQLValue { number.flatMap { $0.isFinite ? SQLValue.real($0) : nil } ?? .null }
}

/// One row of a result, valid only inside the callback that receives it.
struct SQLRow {
    fileprivate let statement: OpaquePointer

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
    func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }
    func double(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(statement, column) }

    func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(statement, column) else { return nil }
        let n = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
}

/// One SQLite connection with its prepared statements, opened without sqlite's own mutex
/// (SQLITE_OPEN_NOMUTEX): the owner guarantees that one thread at a time uses it (the index's
/// writer lock, or a reader checked out of its pool). Not Sendable for that reason.
final class SQLiteConnection {
    let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (and with `create`, creates) the database at `path`. A busy database is waited
    /// for up to `busyMilliseconds` (another process writing).
    init(path: String, readOnly: Bool, create: Bool, busyMilliseconds: Int32 = 5000) throws(SQLiteError) {
        var flags = SQLITE_OPEN_NOMUTEX | (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        sqlite3_busy_timeout(db, busyMilliseconds)
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    private func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs SQL without results (several statements separated by `;` allowed).
    func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// Runs one statement (prepared once per connection and kept) with `values` bound to its
    /// `?` parameters, calling `row` for each result row.
    func run(_ sql: String, _ values: [SQLValue] = [], row: (SQLRow) throws(SQLiteError) -> Void = { _ in }) throws(SQLiteError) {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .int(let n): rc = sqlite3_bind_int64(statement, index, Int64(n))
            case .real(let x): rc = sqlite3_bind_double(statement, index, x)
            case .text(let t): rc = csqlite_bind_text(statement, index, t, Int32(t.utf8.count))
            case .null: rc = sqlite3_bind_null(statement, index)
            }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw error(rc) }
            try row(SQLRow(statement: statement))
        }
    }

    /// The single integer the statement answers (a pragma, a count), or nil without a row.
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> Int? {
        var result: Int?
        try run(sql, values) { result = $0.int(0) }
        return result
    }

    /// Runs `body` in one transaction (BEGIN IMMEDIATE: the write lock is taken up front, so
    /// two writing processes queue instead of failing at commit), rolling back on an error.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc) }
        statements[sql] = statement
        return statement
    }
}
