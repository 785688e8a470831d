import Synchronization

/// The rows of packed item tables (`PackedItemTable`), shared by a table and the tables
/// patched from it. A patch used to copy every row but the changed album's into a new array
/// (64 MB at a million photos, and the kernel clearing each fresh page was most of its time);
/// now it appends the rows it adds after those its table sees, and the new table sees those
/// plus the added ones, minus the ones it dropped (`PackedItemTable`'s bitmap). Rows once
/// written never change, so the tables still being read share them safely; only the one
/// thread that makes snapshots appends (under `lock`, and only after the last row written).
final class SharedRows: @unchecked Sendable {
    typealias Row = PackedItemTable.Row

    private var base: UnsafeMutablePointer<Row>
    private var capacity: Int
    /// Rows written. Grows only: by `build(append:)` while one builder owns the rows, then by
    /// `append(_:after:)` under `lock`.
    private var filled = 0
    private let lock = Mutex<Void>(())

    init(capacity: Int) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: filled)
        base.deallocate()
    }

    /// Rows written so far (a builder's count).
    var count: Int { filled }

    /// Row `n`, read in place (a lookup reads one field, not a copy of the row). `n` must be
    /// below the `rowCount` of a table that shares these rows, which is never past `filled`.
    subscript(n: Int) -> Row {
        unsafeAddress {
            assert(n >= 0 && n < filled)
            return UnsafePointer(base + n)
        }
    }

    /// Room for `total` rows at once (a builder that knows how many will come).
    func reserve(_ total: Int) {
        if total > capacity { grow(to: total) }
    }

    /// Appends a row while one builder owns the rows (before any table shares them).
    func build(append row: Row) {
        if filled == capacity { grow(to: capacity * 2) }
        (base + filled).initialize(to: row)
        filled += 1
    }

    private func grow(to total: Int) {
        let fresh = UnsafeMutablePointer<Row>.allocate(capacity: total)
        fresh.moveInitialize(from: base, count: filled)
        base.deallocate()
        base = fresh
        capacity = total
    }

    /// Appends the rows of `other` when this store has exactly `after` rows (nothing was
    /// appended since the table that sees `after` of them) and room for them without moving
    /// (tables read the rows while this runs); false otherwise: the caller copies instead.
    func append(from other: SharedRows, after: Int) -> Bool {
        lock.withLock { _ in
            guard filled == after, capacity - filled >= other.filled else { return false }
            (base + filled).initialize(from: other.base, count: other.filled)
            filled += other.filled
            return true
        }
    }
}
