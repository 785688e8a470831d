import ImagePipeline

/// A snapshot's photos packed into one array of fixed-size rows, looked up by id through an
/// open-addressing table of row numbers.
///
/// A `[String: CatalogItem]` cost about 560 bytes a photo at 100,000 photos: the dictionary
/// keeps its load under 3/4 in power-of-two buckets (262,144 of them for 100,000 entries), each
/// the 16-byte key plus the ~200-byte item inline, plus the relative path on the heap. A row here
/// is 56 bytes: the id as its 48-bit number, the file name only (its folder is the album's, kept
/// once per album; names up to 15 bytes need no heap), the stamp inline, and the rare parts
/// (manifest text, companions, sidecars, ids not of the usual shape) in one optional box.
/// The id table holds an `Int32` row number per slot at a load of at most 1/2.
///
/// Immutable once made (`Builder.finish`): every view of a snapshot shares it.
final class PackedItemTable: Sendable {
    /// 56 bytes: fields share words where their ranges allow (a byte of flags of its own, a
    /// 32-bit album and 32-bit nanoseconds made it 72, 16 MB more at a million photos).
    struct Row: Sendable {
        /// The id's number in the low 48 bits (`StableID`; for another id text, 48 bits of a
        /// hash, the text in `extras.idText`), the flags above.
        private let keyAndFlags: UInt64
        /// The file name (its folder is `folders[album]`), the whole relative path (`wholePath`),
        /// or the URL of a remote item.
        let name: String
        /// The stamp's size in the low 40 bits (0 when the row holds no stamp: the item's stamp,
        /// if any, is then in `extras`; a file of size 0 is no photo), the album number above.
        private let sizeAndAlbum: UInt64
        /// The stamp's mtime: its seconds (signed, 34 bits) above its nanoseconds (30 bits).
        private let mtime: UInt64
        private let inode: UInt64
        let extras: ItemExtras?

        /// `stamp` must fit (`PackedItemTable.fits`); nil: the row holds none.
        init(key: UInt64, name: String, stamp: FileStamp?, album: Int32, flags: UInt64, extras: ItemExtras?) {
            precondition(album >= 0 && Int(album) < 1 << 24, "album numbers fit 24 bits: each has photos, and a table at most 2,000,000")
            keyAndFlags = key & PackedItemTable.keyMask | flags
            self.name = name
            sizeAndAlbum = UInt64(stamp?.size ?? 0) | UInt64(album) << 40
            mtime = stamp.map { UInt64(bitPattern: Int64($0.mtimeSeconds)) << 30 | UInt64($0.mtimeNanoseconds) } ?? 0
            inode = stamp?.inode ?? 0
            self.extras = extras
        }

        /// The id's 48 bits.
        var key: UInt64 { keyAndFlags & PackedItemTable.keyMask }
        var flags: UInt64 { keyAndFlags & ~PackedItemTable.keyMask }
        var album: Int { Int(sizeAndAlbum >> 40) }
        /// The stamp the row holds (nil: see `extras`).
        var stamp: FileStamp? {
            let size = Int(sizeAndAlbum & (1 << 40 - 1))
            guard size > 0 else { return nil }
            return FileStamp(size: size, mtimeSeconds: Int(Int64(bitPattern: mtime) >> 30), mtimeNanoseconds: Int(mtime & (1 << 30 - 1)),
                             inode: inode)
        }
    }

    static let keyMask: UInt64 = 1 << 48 - 1
    static let remote: UInt64 = 1 << 48, wholePath: UInt64 = 1 << 49, hashed: UInt64 = 1 << 50

    /// Whether a row can hold `stamp` (else it goes to the row's box): a size of 1 byte to
    /// 1 TB, nanoseconds below 2^30, seconds within 2^33 of 1970 (about 272 years).
    static func fits(_ stamp: FileStamp) -> Bool {
        stamp.size > 0 && stamp.size < 1 << 40 && stamp.mtimeNanoseconds >= 0 && stamp.mtimeNanoseconds < 1 << 30
            && stamp.mtimeSeconds >= -(1 << 33) && stamp.mtimeSeconds < 1 << 33
    }
    private static let hashedKey: UInt64 = 1 << 63

    /// The rows, shared with the tables patched from this one (`SharedRows`).
    private let rows: SharedRows
    /// How many of the shared rows this table sees (later ones are later tables').
    let rowCount: Int
    /// One bit per row below `rowCount` that a patch dropped from this table; empty when none.
    private let dropped: [UInt64]
    private let droppedCount: Int
    /// Per album number: its id, and the folder its file items' names are relative to.
    let albumIDs: [String]
    let folders: [String]
    /// The library root of the file items (one per scan); nil when there are none.
    let root: LibraryRoot?
    /// Row numbers by the hash of their key (linear probing): -1 an empty slot, -2 one whose
    /// row a patch dropped (a lookup goes on past it). Never points at a dropped row.
    private let slots: [Int32]
    /// Slots not empty (rows and dropped marks): the table is made again past half.
    private let slotsUsed: Int

    private static let emptySlot: Int32 = -1, droppedSlot: Int32 = -2

    /// The items in the table.
    var count: Int { rowCount - droppedCount }

    private init(rows: SharedRows, rowCount: Int, dropped: [UInt64], droppedCount: Int, albumIDs: [String], folders: [String],
                 root: LibraryRoot?, slots: [Int32]? = nil, slotsUsed: Int = 0) {
        self.rows = rows
        self.rowCount = rowCount
        self.dropped = dropped
        self.droppedCount = droppedCount
        self.albumIDs = albumIDs
        self.folders = folders
        self.root = root
        if let slots {
            self.slots = slots
            self.slotsUsed = slotsUsed
        } else {
            var fresh = [Int32](repeating: Self.emptySlot, count: Self.slotCount(for: rowCount - droppedCount))
            for n in 0..<rowCount where Self.isLive(n, dropped: dropped) {
                Self.insert(row: n, key: rows[n].key, into: &fresh)
            }
            self.slots = fresh
            self.slotsUsed = rowCount - droppedCount
        }
    }

    /// A power of two at least twice `rows` (a load of at most 1/2).
    private static func slotCount(for rows: Int) -> Int {
        var count = 16
        while count < rows * 2 { count *= 2 }
        return count
    }

    /// Puts `row` in the first free slot from its key's (empty, or a dropped row's); true when
    /// that slot was empty (one more slot used).
    @discardableResult
    private static func insert(row: Int, key: UInt64, into slots: inout [Int32]) -> Bool {
        let mask = slots.count - 1
        var i = slot(key, count: slots.count)
        while slots[i] >= 0 { i = (i + 1) & mask }
        defer { slots[i] = Int32(row) }
        return slots[i] == emptySlot
    }

    /// Whether this table reads the same rows as `other` (a patch appended to them).
    func sharesRows(with other: PackedItemTable) -> Bool { rows === other.rows }

    /// The rows, for the album lists that read from them (`ItemIDList.reads`).
    var sharedRows: SharedRows { rows }

    /// Whether row `n` (below `rowCount`) is one of this table's items.
    func isLive(row n: Int) -> Bool { Self.isLive(n, dropped: dropped) }

    private static func isLive(_ n: Int, dropped: [UInt64]) -> Bool { dropped.isEmpty || dropped[n >> 6] & (1 << UInt64(n & 63)) == 0 }

    /// The first slot of `key` among `count` (a power of two): the top bits of a multiplicative hash.
    private static func slot(_ key: UInt64, count: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - count.trailingZeroBitCount))
    }

    /// The key of an id text: its number when it has the `StableID` shape, else a hash of it.
    static func key(_ id: String) -> UInt64 {
        var value: UInt64 = 0
        var n = 0
        for byte in id.utf8 {
            n += 1
            let digit: UInt64
            switch byte {
            case 0x30...0x39: digit = UInt64(byte - 0x30)
            case 0x61...0x66: digit = UInt64(byte - 0x61 + 10)
            default:
                n = 13
                digit = 0
            }
            if n > 12 { break }
            value = value << 4 | digit
        }
        if n == 12 { return value }
        var hash = FNV1a()
        hash.add(id)
        return hash.value | hashedKey
    }

    /// The row of `id`, nil when the table has none.
    func row(of id: String) -> Int? {
        let key = Self.key(id)
        let mask = slots.count - 1
        var i = Self.slot(key & Self.keyMask, count: slots.count)
        while slots[i] != Self.emptySlot {
            let n = Int(slots[i])
            if n >= 0 && rows[n].key == key & Self.keyMask
                && (key & Self.hashedKey == 0 ? rows[n].flags & Self.hashed == 0 : rows[n].extras?.idText == id) { return n }
            i = (i + 1) & mask
        }
        return nil
    }

    func albumID(ofRow row: Int) -> String { albumIDs[rows[row].album] }

    func isFile(row: Int) -> Bool { rows[row].flags & Self.remote == 0 }

    /// The id text of a row.
    func id(ofRow row: Int) -> String {
        if rows[row].flags & Self.hashed != 0 { return rows[row].extras?.idText ?? "" }
        return StableID.text(rows[row].key)
    }

    /// The item of a row, as the catalog had it.
    func item(atRow n: Int) -> CatalogItem {
        let row = rows[n]
        let source: ItemSource
        if let given = row.extras?.source {
            source = given
        } else if row.flags & Self.remote != 0 {
            source = .remote(url: row.name)
        } else {
            let folder = folders[row.album]
            let rel = row.flags & Self.wholePath != 0 || folder.isEmpty ? row.name : folder + "/" + row.name
            source = .file(relativePath: rel, root: root ?? LibraryRoot(""))
        }
        let stamp = row.stamp ?? row.extras?.stamp
        var item = CatalogItem(id: id(ofRow: n), albumID: albumIDs[row.album], givenTitle: row.extras?.givenTitle,
                               caption: row.extras?.caption, source: source, stamp: stamp)
        if let extras = row.extras {
            item.companions = extras.companions
            item.sidecar = extras.sidecar
        }
        return item
    }

    /// Collects rows; `finish` makes the table. Ids must be unique.
    struct Builder {
        fileprivate var rows = SharedRows(capacity: 16)
        fileprivate var albumNumbers: [String: Int32] = [:]
        fileprivate var albumIDs: [String] = []
        fileprivate var folders: [String?] = []
        fileprivate var root: LibraryRoot?

        init() {}

        /// No rows yet, the albums and root of `table` (a patch's rows refer to its albums).
        fileprivate init(albumsOf table: PackedItemTable, capacity: Int) {
            rows = SharedRows(capacity: capacity)
            albumIDs = table.albumIDs
            folders = table.folders.map { Optional($0) }
            albumNumbers.reserveCapacity(albumIDs.count)
            for (n, id) in albumIDs.enumerated() { albumNumbers[id] = Int32(n) }
            root = table.root
        }

        var count: Int { rows.count }

        /// Room for `count` rows, when the caller knows how many will come (a listing does),
        /// and a sixteenth more for the rows later patches append (`SharedRows`): pages past
        /// the written rows are never touched, so they cost no memory until used.
        mutating func reserveCapacity(_ count: Int) { rows.reserve(count + count / 16 + 64) }

        mutating func append(_ item: CatalogItem) {
            let album = self.album(item.albumID, folder: nil)
            let key = PackedItemTable.key(item.id)
            var flags: UInt64 = key & PackedItemTable.hashedKey != 0 ? PackedItemTable.hashed : 0
            var name = ""
            var otherSource: ItemSource?
            switch item.source {
            case .remote(let url):
                flags |= PackedItemTable.remote
                name = url
            case .file(let rel, let itemRoot):
                if root == nil { root = itemRoot }
                guard let root, root == itemRoot else {
                    otherSource = item.source
                    break
                }
                let cut = rel.utf8.lastIndex(of: UInt8(ascii: "/"))
                let folder = cut.map { String(rel[..<$0]) } ?? ""
                if folders[Int(album)] == nil { folders[Int(album)] = folder }
                if folders[Int(album)] == folder {
                    name = cut.map { String(rel[rel.utf8.index(after: $0)...]) } ?? rel
                } else {
                    flags |= PackedItemTable.wholePath
                    name = rel
                }
            }
            // A stamp the row cannot hold (`fits`) goes to the box.
            let packedStamp = item.stamp.flatMap { PackedItemTable.fits($0) ? $0 : nil }
            let extras = ItemExtras(item, idText: key & PackedItemTable.hashedKey != 0 ? item.id : nil, source: otherSource,
                                    stamp: packedStamp == nil ? item.stamp : nil)
            rows.build(append: Row(key: key, name: name, stamp: packedStamp, album: album, flags: flags, extras: extras))
        }

        /// The ids of the rows `span` added so far, as an album's list that reads them from the
        /// rows (`ItemIDList`): an album's photos are added one after the other in page order.
        func ids(of span: Range<Int>) -> ItemIDList { ItemIDList(rows: rows, span: span) }

        /// Makes `root` the root of the file items before any is added (a scan's items share it).
        mutating func useRoot(_ root: LibraryRoot) {
            if self.root == nil { self.root = root }
        }

        /// The number of the album `id` whose file items lie in `folder` (nil: the first file
        /// item added says), made when new.
        mutating func album(_ id: String, folder: String?) -> Int32 {
            if let known = albumNumbers[id] { return known }
            let album = Int32(albumIDs.count)
            albumNumbers[id] = album
            albumIDs.append(id)
            folders.append(folder)
            return album
        }

        /// A photo of `folder` under the root given to `useRoot`, in album number `album` (from
        /// `album(_:folder:)` with that folder): the row `append` makes of such an item, without
        /// the item, its path or its id's text (a catalog build adds one per photo). `key` is
        /// the id's number (`StableID`).
        mutating func appendFile(key: UInt64, album: Int32, name: String, stamp: FileStamp, givenTitle: String?, caption: String?,
                                 companions: [Companion], sidecar: SidecarFile?) {
            precondition(root != nil && folders[Int(album)] != nil, "useRoot and album(_:folder:) first")
            let packed = PackedItemTable.fits(stamp)
            let extras = ItemExtras.make(givenTitle: givenTitle, caption: caption, companions: companions, sidecar: sidecar,
                                         stamp: packed ? nil : stamp)
            rows.build(append: Row(key: key, name: name, stamp: packed ? stamp : nil, album: album, flags: 0, extras: extras))
        }

        func finish() -> PackedItemTable {
            PackedItemTable(rows: rows, rowCount: rows.count, dropped: [], droppedCount: 0, albumIDs: albumIDs,
                            folders: folders.map { $0 ?? "" }, root: root)
        }
    }
}

extension PackedItemTable {
    /// This table without the rows `dropping` (row numbers of its items) and with `items`
    /// added: a patch's table, made in time and memory of the change, not of the library.
    /// The added rows are appended to the shared rows when this table saw them all (nothing
    /// was appended since) and they have room; the id table is copied and its dropped slots
    /// marked. Otherwise, or once dropped rows would pass an eighth of the rows, the items are
    /// copied into rows of their own, with room for the next patches.
    func patched(dropping: Set<Int>, adding items: [CatalogItem]) -> PackedItemTable {
        var builder = Builder(albumsOf: self, capacity: items.count)
        for item in items { builder.append(item) }
        let added = builder.rows
        let droppedNow = droppedCount + dropping.count
        let folders = builder.folders.map { $0 ?? "" }
        guard droppedNow * 8 <= rowCount, rows.append(from: added, after: rowCount) else {
            // The builder's albums (with any the added rows made), rows of its own.
            var copy = builder
            copy.rows = SharedRows(capacity: 0)
            copy.reserveCapacity(count - dropping.count + added.count)
            for n in 0..<rowCount where isLive(row: n) && !dropping.contains(n) { copy.rows.build(append: rows[n]) }
            for n in 0..<added.count { copy.rows.build(append: added[n]) }
            return copy.finish()
        }
        let total = rowCount + added.count
        var bits = dropped
        if droppedNow > 0 {
            bits.append(contentsOf: repeatElement(0, count: (total + 63) / 64 - bits.count))
            for n in dropping { bits[n >> 6] |= 1 << UInt64(n & 63) }
        }
        guard (slotsUsed + added.count) * 2 <= slots.count else {
            // Past half full (dropped marks count): the id table is made again from the items.
            return PackedItemTable(rows: rows, rowCount: total, dropped: bits, droppedCount: droppedNow, albumIDs: builder.albumIDs,
                                   folders: folders, root: builder.root)
        }
        var slots = self.slots
        var used = slotsUsed
        let mask = slots.count - 1
        for n in dropping {
            var i = Self.slot(rows[n].key, count: slots.count)
            while slots[i] != Self.emptySlot && slots[i] != Int32(n) { i = (i + 1) & mask }
            if slots[i] == Int32(n) { slots[i] = Self.droppedSlot }
        }
        for n in rowCount..<total where Self.insert(row: n, key: rows[n].key, into: &slots) { used += 1 }
        return PackedItemTable(rows: rows, rowCount: total, dropped: bits, droppedCount: droppedNow, albumIDs: builder.albumIDs,
                               folders: folders, root: builder.root, slots: slots, slotsUsed: used)
    }
}

/// The parts of an item few photos have, boxed so that a row without them costs one nil.
final class ItemExtras: Sendable {
    let idText: String?
    let givenTitle: String?
    let caption: String?
    let companions: [Companion]
    let sidecar: SidecarFile?
    /// A source the row cannot say (a file under another root).
    let source: ItemSource?
    /// A stamp the row cannot hold.
    let stamp: FileStamp?

    private init(idText: String?, givenTitle: String?, caption: String?, companions: [Companion], sidecar: SidecarFile?,
                 source: ItemSource?, stamp: FileStamp?) {
        self.idText = idText
        self.givenTitle = givenTitle
        self.caption = caption
        self.companions = companions
        self.sidecar = sidecar
        self.source = source
        self.stamp = stamp
    }

    /// The box of a file item under the table's root, nil when it has none of these parts.
    static func make(givenTitle: String?, caption: String?, companions: [Companion], sidecar: SidecarFile?, stamp: FileStamp?) -> ItemExtras? {
        guard givenTitle != nil || caption != nil || !companions.isEmpty || sidecar != nil || stamp != nil else { return nil }
        return ItemExtras(idText: nil, givenTitle: givenTitle, caption: caption, companions: companions, sidecar: sidecar,
                          source: nil, stamp: stamp)
    }

    /// The box of `item`, nil when it has none of these parts.
    convenience init?(_ item: CatalogItem, idText: String?, source: ItemSource?, stamp: FileStamp?) {
        guard idText != nil || item.givenTitle != nil || item.caption != nil || !item.companions.isEmpty || item.sidecar != nil
                || source != nil || stamp != nil else { return nil }
        self.init(idText: idText, givenTitle: item.givenTitle, caption: item.caption, companions: item.companions, sidecar: item.sidecar,
                  source: source, stamp: stamp)
    }
}
