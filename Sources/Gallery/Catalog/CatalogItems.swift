/// The photos a catalog (or a view of it) holds, looked up by id.
///
/// Every view of one snapshot (the full catalog, the public view, a share link's view) refers
/// to the same table of items (`PackedItemTable`, immutable and shared), so the items of
/// 100,000 photos exist once however many views are made. A view keeps only the ids of the
/// albums it holds, and an item belongs to the view exactly when its album does (each item is
/// listed by the album named in its `albumID` and by no other), so a photo of a private album
/// is as absent from the public view as if it had been copied out.
public struct CatalogItems: Sendable {
    let table: PackedItemTable
    /// The albums whose items are visible; nil: every item of the table.
    private let albums: Set<String>?
    /// How many items are visible.
    public let count: Int

    /// Every item of `items`.
    public init(_ items: [String: CatalogItem]) {
        var builder = PackedItemTable.Builder()
        for item in items.values { builder.append(item) }
        self.init(builder.finish())
    }

    /// Every item of `table`.
    init(_ table: PackedItemTable) {
        self.table = table
        albums = nil
        count = table.count
    }

    /// The items of `table` whose album is one of `albums`; `count` is their number
    /// (the sum of those albums' item lists, counted by the caller who has them at hand).
    init(_ table: PackedItemTable, albums: Set<String>, count: Int) {
        self.table = table
        self.albums = albums
        self.count = count
    }

    /// The same table, restricted to `albums` (which must hold `count` items between them).
    func restricted(to albums: Set<String>, count: Int) -> CatalogItems {
        CatalogItems(table, albums: albums, count: count)
    }

    /// The item with `id`, nil when it is not in this view.
    public subscript(id: String) -> CatalogItem? {
        guard let row = table.row(of: id) else { return nil }
        if let albums, !albums.contains(table.albumID(ofRow: row)) { return nil }
        return table.item(atRow: row)
    }

    public var isEmpty: Bool { count == 0 }

    /// How many visible items are library files (not remote): one pass over the rows, no
    /// lookups, for the removal guard, which counts a catalog of 100,000 photos per change.
    var fileCount: Int {
        var count = 0
        for row in 0..<table.rowCount where table.isLive(row: row) && table.isFile(row: row)
            && (albums?.contains(table.albumID(ofRow: row)) ?? true) { count += 1 }
        return count
    }

    /// The visible items in no particular order (an array made on each call: for tests and
    /// tools, not for request paths).
    public var values: [CatalogItem] {
        (0..<table.rowCount).compactMap { row in
            guard table.isLive(row: row) else { return nil }
            if let albums, !albums.contains(table.albumID(ofRow: row)) { return nil }
            return table.item(atRow: row)
        }
    }

    /// The ids of the visible items in no particular order (made on each call, as `values`).
    public var keys: [String] { values.map(\.id) }
}
