import ImagePipeline

/// A snapshot's photos packed into one array of fixed-size rows, looked up by id through an
/// open-addressing table of row numbers.
///
/// A `[String: CatalogItem]` cost about 560 bytes a photo at 100,000 photos: the dictionary
/// keeps its load under 3/4 in power-of-two buckets (262,144 of them for 100,000 entries), each
/// the 16-byte key plus the ~200-byte item inline, plus the relative path on the heap. A row here
/// is 64 bytes: the id as its 48-bit number, the file name only (its folder is the album's, kept
/// once per album; names up to 15 bytes need no heap), the stamp inline, and the rare parts
/// (manifest text, companions, sidecars, ids not of the usual shape) in one optional box.
/// The id table holds an `Int32` row number per slot at a load of at most 1/2.
///
/// Immutable once made (`Builder.finish`): every view of a snapshot shares it.
final class PackedItemTable: Sendable {
    struct Row: Sendable {
        /// The id's 48 bits (`StableID`), or a hash with the top bit set for another id text
        /// (kept in `extras.idText`).
        var key: UInt64
        /// The file name (its folder is `folders[album]`), the whole relative path (`wholePath`),
        /// or the URL of a remote item.
        var name: String
        /// The stamp's size; 0 when the row holds no stamp (the item's stamp, if any, is then in
        /// `extras`: a file of size 0 is no photo, so a kept stamp is never of size 0).
        var size: Int64
        var mtimeSeconds: Int64
        var inode: UInt64
        var extras: ItemExtras?
        var album: Int32
        /// The stamp's nanoseconds in the low 30 bits (they are below 10^9), the flags above
        /// them: 64 bytes a row, where a byte of flags of its own made it 72 (8 MB at a million).
        var nanosAndFlags: UInt32

        var flags: UInt32 { nanosAndFlags & ~PackedItemTable.nanosMask }
    }

    static let remote: UInt32 = 1 << 30, wholePath: UInt32 = 1 << 31, nanosMask: UInt32 = (1 << 30) - 1

    /// Whether a row can hold `stamp` (else it goes to the row's box).
    static func fitsRow(_ stamp: FileStamp) -> Bool {
        stamp.size > 0 && stamp.mtimeNanoseconds >= 0 && stamp.mtimeNanoseconds <= Int(nanosMask)
    }
    private static let hashedKey: UInt64 = 1 << 63

    let rows: [Row]
    /// Per album number: its id, and the folder its file items' names are relative to.
    let albumIDs: [String]
    let folders: [String]
    /// The library root of the file items (one per scan); nil when there are none.
    let root: LibraryRoot?
    /// Row numbers by the hash of their key, -1 for an empty slot (linear probing).
    private let slots: [Int32]
    private let shift: UInt64

    var count: Int { rows.count }

    private init(rows: [Row], albumIDs: [String], folders: [String], root: LibraryRoot?) {
        self.rows = rows
        self.albumIDs = albumIDs
        self.folders = folders
        self.root = root
        var bits: UInt64 = 4
        while (1 << bits) < rows.count * 2 { bits += 1 }
        shift = 64 - bits
        var slots = [Int32](repeating: -1, count: 1 << bits)
        let mask = (1 << Int(bits)) - 1
        for (n, row) in rows.enumerated() {
            var i = Self.slot(row.key, shift: shift)
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = Int32(n)
        }
        self.slots = slots
    }

    private static func slot(_ key: UInt64, shift: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

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
        var i = Self.slot(key, shift: shift)
        while slots[i] >= 0 {
            let n = Int(slots[i])
            if rows[n].key == key && (key & Self.hashedKey == 0 || rows[n].extras?.idText == id) { return n }
            i = (i + 1) & mask
        }
        return nil
    }

    func albumID(ofRow row: Int) -> String { albumIDs[Int(rows[row].album)] }

    func isFile(row: Int) -> Bool { rows[row].flags & Self.remote == 0 }

    /// The id text of a row.
    func id(ofRow row: Int) -> String {
        let key = rows[row].key
        if key & Self.hashedKey != 0 { return rows[row].extras?.idText ?? "" }
        return StableID.text(key)
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
            let folder = folders[Int(row.album)]
            let rel = row.flags & Self.wholePath != 0 || folder.isEmpty ? row.name : folder + "/" + row.name
            source = .file(relativePath: rel, root: root ?? LibraryRoot(""))
        }
        let stamp = row.size > 0
            ? FileStamp(size: Int(row.size), mtimeSeconds: Int(row.mtimeSeconds), mtimeNanoseconds: Int(row.nanosAndFlags & Self.nanosMask),
                        inode: row.inode)
            : row.extras?.stamp
        var item = CatalogItem(id: id(ofRow: n), albumID: albumIDs[Int(row.album)], givenTitle: row.extras?.givenTitle,
                               caption: row.extras?.caption, source: source, stamp: stamp)
        if let extras = row.extras {
            item.companions = extras.companions
            item.sidecar = extras.sidecar
        }
        return item
    }

    /// Collects rows; `finish` makes the table. Ids must be unique.
    struct Builder {
        private var rows: [Row] = []
        private var albumNumbers: [String: Int32] = [:]
        private var albumIDs: [String] = []
        private var folders: [String?] = []
        private var root: LibraryRoot?

        init() {}

        /// The rows of `table` but `dropping` (row numbers), to which a patch adds `adding`
        /// rows of its own: the array is made that big at once. Growing it by doubling for the
        /// added rows copied the whole table again into twice its size, and fresh pages cost
        /// more than the copy (the kernel clears each one): 71 % of a patch's 500-635 ms at a
        /// million photos.
        init(copying table: PackedItemTable, dropping: Set<Int>, adding: Int) {
            rows.reserveCapacity(table.count - dropping.count + adding)
            for (n, row) in table.rows.enumerated() where !dropping.contains(n) { rows.append(row) }
            albumIDs = table.albumIDs
            folders = table.folders.map { Optional($0) }
            for (n, id) in albumIDs.enumerated() { albumNumbers[id] = Int32(n) }
            root = table.root
        }

        var count: Int { rows.count }

        /// Room for `count` rows, when the caller knows how many will come (a listing does).
        mutating func reserveCapacity(_ count: Int) { rows.reserveCapacity(count) }

        mutating func append(_ item: CatalogItem) {
            let album: Int32
            if let known = albumNumbers[item.albumID] {
                album = known
            } else {
                album = Int32(albumIDs.count)
                albumNumbers[item.albumID] = album
                albumIDs.append(item.albumID)
                folders.append(nil)
            }
            let key = PackedItemTable.key(item.id)
            var flags: UInt32 = 0
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
            // A stamp the row cannot hold (`fitsRow`) goes to the box.
            let packedStamp = item.stamp.flatMap { PackedItemTable.fitsRow($0) ? $0 : nil }
            let extras = ItemExtras(item, idText: key & PackedItemTable.hashedKey != 0 ? item.id : nil, source: otherSource,
                                    stamp: packedStamp == nil ? item.stamp : nil)
            rows.append(Row(key: key, name: name, size: Int64(packedStamp?.size ?? 0), mtimeSeconds: Int64(packedStamp?.mtimeSeconds ?? 0),
                            inode: packedStamp?.inode ?? 0, extras: extras, album: album,
                            nanosAndFlags: UInt32(packedStamp?.mtimeNanoseconds ?? 0) | flags))
        }

        /// Makes `root` the root of the file items before any is added (a scan's items share it).
        mutating func useRoot(_ root: LibraryRoot) {
            if self.root == nil { self.root = root }
        }

        /// The number of the album `id` whose file items lie in `folder`, made when new.
        mutating func album(_ id: String, folder: String) -> Int32 {
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
            let packed = PackedItemTable.fitsRow(stamp)
            let extras = ItemExtras.make(givenTitle: givenTitle, caption: caption, companions: companions, sidecar: sidecar,
                                         stamp: packed ? nil : stamp)
            rows.append(Row(key: key, name: name, size: Int64(packed ? stamp.size : 0), mtimeSeconds: Int64(packed ? stamp.mtimeSeconds : 0),
                            inode: packed ? stamp.inode : 0, extras: extras, album: album,
                            nanosAndFlags: packed ? UInt32(stamp.mtimeNanoseconds) : 0))
        }

        func finish() -> PackedItemTable {
            PackedItemTable(rows: rows, albumIDs: albumIDs, folders: folders.map { $0 ?? "" }, root: root)
        }
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
