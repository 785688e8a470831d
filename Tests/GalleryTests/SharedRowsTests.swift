import Foundation
import ImagePipeline
import Testing
@testable import Gallery

/// Patches append to the rows their table shares (`SharedRows`) and mark what they drop;
/// every table of the chain stays exact, a patch of an older table copies instead, and
/// the rows are compacted once dropped ones pass an eighth.
@Suite struct SharedRowsTests {
    static let root = LibraryRoot("/library")

    static func item(_ album: Int, _ name: String, size: Int) -> CatalogItem {
        let rel = "A\(album)/\(name)"
        return CatalogItem(id: StableID.make("item:" + rel), albumID: "album\(album)", givenTitle: nil, caption: nil,
                           source: .file(relativePath: rel, root: root),
                           stamp: FileStamp(size: size, mtimeSeconds: 1_700_000_000, mtimeNanoseconds: size, inode: UInt64(size)))
    }

    /// `table` holds exactly `expected`.
    static func exact(_ table: PackedItemTable, _ expected: [String: CatalogItem]) -> Bool {
        guard table.count == expected.count, CatalogItems(table).values.count == expected.count else { return false }
        return expected.allSatisfy { id, item in table.row(of: id).map { table.item(atRow: $0) } == item }
    }

    /// The rows of `album`'s items in `table`, and a replacement: half kept with a new stamp
    /// (same ids), half new names.
    static func change(_ album: Int, step: Int, in table: PackedItemTable, expected: inout [String: CatalogItem]) -> (Set<Int>, [CatalogItem]) {
        let old = expected.values.filter { $0.albumID == "album\(album)" }
        var dropping = Set<Int>()
        for item in old {
            dropping.insert(table.row(of: item.id)!)
            expected[item.id] = nil
        }
        var adding: [CatalogItem] = []
        for (n, item) in old.enumerated() {
            let name = n % 2 == 0 ? item.fileName : "new-\(step)-\(n).jpg"
            adding.append(Self.item(album, name, size: 1_000 * step + n + 1))
        }
        for item in adding { expected[item.id] = item }
        return (dropping, adding)
    }

    @Test func aChainOfPatchesStaysExact() throws {
        var expected: [String: CatalogItem] = [:]
        var builder = PackedItemTable.Builder()
        builder.reserveCapacity(1_000)
        for album in 0..<10 {
            for p in 0..<100 {
                let item = Self.item(album, "IMG_\(p).jpg", size: p + 1)
                expected[item.id] = item
                builder.append(item)
            }
        }
        var table = builder.finish()
        var tables: [(PackedItemTable, [String: CatalogItem])] = [(table, expected)]
        for step in 1...30 {
            let (dropping, adding) = Self.change(step % 10, step: step, in: table, expected: &expected)
            table = table.patched(dropping: dropping, adding: adding)
            #expect(Self.exact(table, expected), "after patch \(step)")
            tables.append((table, expected))
        }
        // The tables before are untouched by the rows appended after them.
        for (n, (older, items)) in tables.enumerated() { #expect(Self.exact(older, items), "table \(n)") }
        #expect(table.rowCount < 1_000 + 30 * 100, "compacted once dropped rows passed an eighth")
    }

    @Test func anOlderTablePatchedAgainCopiesAndBothStayExact() {
        var expected: [String: CatalogItem] = [:]
        var builder = PackedItemTable.Builder()
        for p in 0..<50 {
            let item = Self.item(p % 5, "IMG_\(p).jpg", size: p + 1)
            expected[item.id] = item
            builder.append(item)
        }
        let base = builder.finish()
        var first = expected, second = expected
        let (dropA, addA) = Self.change(1, step: 1, in: base, expected: &first)
        let a = base.patched(dropping: dropA, adding: addA)
        let (dropB, addB) = Self.change(2, step: 2, in: base, expected: &second)
        let b = base.patched(dropping: dropB, adding: addB)
        #expect(Self.exact(a, first) && Self.exact(b, second) && Self.exact(base, expected))
        // Only adding (nothing dropped) keeps the table without a dropped-row bitmap.
        let more = Self.item(7, "more.jpg", size: 99)
        let c = a.patched(dropping: [], adding: [more])
        first[more.id] = more
        #expect(Self.exact(c, first))
    }
}
