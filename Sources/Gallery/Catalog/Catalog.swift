import Foundation
import ImagePipeline

/// The real path of the library folder, one object shared by every file item of a scan, so
/// each photo keeps only its relative path (an absolute path per photo was about 100 bytes of
/// heap each, 10 MB at 100,000 photos, twice while a rescan builds the next catalog).
public final class LibraryRoot: Sendable, Equatable {
    public let path: String

    public init(_ path: String) { self.path = path }

    public static func == (a: LibraryRoot, b: LibraryRoot) -> Bool { a === b || a.path == b.path }
}

/// Where an item's bytes come from.
public enum ItemSource: Sendable, Equatable {
    /// A file inside the library: its path relative to the root, and the root.
    case file(relativePath: String, root: LibraryRoot)
    /// An http(s) URL named in the manifest.
    case remote(url: String)

    /// The absolute path of a file (made on demand); nil for remote items.
    public var absolutePath: String? {
        if case .file(let rel, let root) = self { return root.path + "/" + rel }
        return nil
    }
}

/// An XMP sidecar file: its name in the photo's folder and its stamp at scan time.
public struct SidecarFile: Sendable, Equatable {
    /// Empty in a catalog built from the index's listing, which keeps only the stamp.
    public var name: String
    public var stamp: FileStamp

    public init(name: String, stamp: FileStamp) {
        self.name = name
        self.stamp = stamp
    }
}

/// One photograph. Kept compact, since a catalog holds one per photo (100,000 and more) and a
/// rescan holds two catalogs for a moment: only the id, album, relative path (or URL), the
/// manifest's own text and the stamp are stored; the file name, title, absolute path, size and
/// mtime are derived from them when a page asks.
public struct CatalogItem: Sendable, Equatable {
    public var id: String
    public var albumID: String
    /// The title `gallery.json` gives, if any; `title` is made from the file name otherwise.
    public var givenTitle: String?
    public var caption: String?
    public var source: ItemSource
    /// Size, mtime and inode at scan time (nil for remote items): the library index's facts
    /// count for the item only while its stamp is this one.
    public var stamp: FileStamp?
    /// Files that belong to this one: a Live Photo's movie, a raw shot with this JPEG
    /// (`CompanionPairing`). Empty for most items.
    public var companions: [Companion] = []
    /// The XMP sidecar beside the file (`IMG_1.jpg.xmp`, else `IMG_1.xmp`, any case), as the
    /// scan saw it; nil when there is none.
    public var sidecar: SidecarFile?

    public init(id: String, albumID: String, givenTitle: String?, caption: String?, source: ItemSource, stamp: FileStamp?) {
        self.id = id
        self.albumID = albumID
        self.givenTitle = givenTitle
        self.caption = caption
        self.source = source
        self.stamp = stamp
    }

    /// The file name (or the last URL path segment for remote items, "image" when it has none).
    public var fileName: String {
        switch source {
        case .file(let rel, _):
            guard let slash = rel.utf8.lastIndex(of: UInt8(ascii: "/")) else { return rel }
            return String(rel[rel.utf8.index(after: slash)...])
        case .remote(let url):
            let last = URL(string: url)?.lastPathComponent ?? ""
            return last.isEmpty || last == "/" ? "image" : last
        }
    }

    /// The manifest's title, else the file name in words ("summer_beach-2024.jpg" → "summer beach 2024").
    public var title: String { givenTitle ?? CatalogNaming.title(fromFileName: fileName, dropExtension: true) }
    /// Bytes on disk at scan time (nil for remote items).
    public var fileSize: Int? { stamp?.size }
    /// Modification time at scan time, seconds since 1970 (nil for remote items).
    public var modified: Int? { stamp?.mtimeSeconds }
    /// The file's absolute path (nil for remote items).
    public var absolutePath: String? { source.absolutePath }

    /// The path relative to the library root (nil for remote items): the library index's key.
    public var relativePath: String? {
        if case .file(let rel, _) = source { return rel }
        return nil
    }

    /// The companion of `role`, if the item has one.
    public func companion(_ role: Companion.Role) -> Companion? { companions.first { $0.role == role } }

    /// The file:// URL of a companion (in the item's folder); nil for remote items.
    public func companionURL(_ companion: Companion) -> String? {
        guard case .file(let rel, let root) = source else { return nil }
        let folder = rel.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return "file://" + root.path + "/" + (folder.isEmpty ? "" : folder + "/") + companion.name
    }

    /// The URL the image pipeline reads: file:// inside the library, or http(s)://.
    public var sourceURL: String {
        switch source {
        case .file(let rel, let root): return "file://" + root.path + "/" + rel
        case .remote(let url): return url
        }
    }
}

/// One folder (or a manifest album): its albums and items, both sorted by name.
public struct CatalogAlbum: Sendable, Equatable {
    public var id: String
    public var parentID: String?
    /// Path relative to the root ("" for the root itself).
    public var relativePath: String
    public var title: String
    public var caption: String?
    public var albumIDs: [String]
    /// Its photos in page order (as numbers: `ItemIDList`).
    public var itemIDs: ItemIDList
    /// How many of `itemIDs` are movies (by file name, as `ImageFiles.isMovie`): counted once
    /// at scan time so list pages can say "12 photos, 3 videos" without visiting every item.
    public var videoCount = 0
    /// The id of the album whose `gallery.json` entry says `"private": true`, for this album
    /// and every album below it (the topmost such album when several are marked); nil for a
    /// public album. Private albums are left out of the public view (`Catalog.publicView`).
    public var privateRoot: String? = nil
    /// Whether its page shows captions under the thumbnails (`gallery.json` `captions`).
    public var showsCaptions = false
}

/// An immutable snapshot of the library; the store swaps in a new one when the folder changes.
public struct Catalog: Sendable {
    public var siteTitle: String
    public var rootID: String
    public var albums: [String: CatalogAlbum]
    /// The photos, in one table shared by every view of this snapshot (`CatalogItems`).
    public var items: CatalogItems
    /// What every link of a page made from this catalog starts with: "" for the public view,
    /// "/s/<token>" for the view a share link opens (see `CatalogViews`).
    public var linkPrefix: String = ""
    /// `gallery.json`'s `show_location`: whether detail pages show GPS positions. Default false.
    public var showLocation = false

    public init(siteTitle: String, rootID: String, albums: [String: CatalogAlbum], items: [String: CatalogItem]) {
        self.siteTitle = siteTitle
        self.rootID = rootID
        self.albums = albums
        self.items = CatalogItems(items)
    }

    /// A catalog of the items of `table` (a scan's or a patch's rows).
    init(siteTitle: String, rootID: String, albums: [String: CatalogAlbum], table: PackedItemTable) {
        self.siteTitle = siteTitle
        self.rootID = rootID
        self.albums = albums
        self.items = CatalogItems(table)
    }

    /// An empty library (no folder yet).
    public static func empty(siteTitle: String) -> Catalog {
        let rootID = StableID.make("album:")
        let root = CatalogAlbum(id: rootID, parentID: nil, relativePath: "", title: siteTitle, caption: nil, albumIDs: [], itemIDs: [])
        return Catalog(siteTitle: siteTitle, rootID: rootID, albums: [rootID: root], items: [:])
    }

    public var root: CatalogAlbum { albums[rootID]! }

    /// The album chain from the root down to `albumID` (inclusive).
    public func ancestry(of albumID: String) -> [CatalogAlbum] {
        var chain: [CatalogAlbum] = []
        var cursor: String? = albumID
        while let id = cursor, let album = albums[id], chain.count < 64 {
            chain.append(album)
            cursor = album.parentID
        }
        return chain.reversed()
    }

    /// The items before and after `itemID` in its album (nil at either end).
    public func neighbours(of itemID: String) -> (previous: CatalogItem?, next: CatalogItem?) {
        guard let item = items[itemID], let album = albums[item.albumID],
              let index = album.itemIDs.firstIndex(of: itemID) else { return (nil, nil) }
        let previous = index > 0 ? items[album.itemIDs[index - 1]] : nil
        let next = index + 1 < album.itemIDs.count ? items[album.itemIDs[index + 1]] : nil
        return (previous, next)
    }

    /// The first item of the album, else of its first album that has one: the album's cover.
    public func coverItem(of albumID: String) -> CatalogItem? {
        var queue = [albumID]
        var seen = Set<String>()
        while !queue.isEmpty {
            let id = queue.removeFirst()
            guard seen.insert(id).inserted, let album = albums[id] else { continue }
            if let first = album.itemIDs.first, let item = items[first] { return item }
            queue.append(contentsOf: album.albumIDs)
        }
        return nil
    }

    /// Items in the album and every album below it.
    public func totalItemCount(of albumID: String) -> Int { totalCounts(of: albumID).items }

    /// Items in the album and every album below it, and how many of them are movies.
    public func totalCounts(of albumID: String) -> (items: Int, videos: Int) {
        var total = 0, videos = 0
        var stack = [albumID]
        var seen = Set<String>()
        while let id = stack.popLast() {
            guard seen.insert(id).inserted, let album = albums[id] else { continue }
            total += album.itemIDs.count
            videos += album.videoCount
            stack.append(contentsOf: album.albumIDs)
        }
        return (total, videos)
    }
}

/// Names and ordering shared by the scanner and the manifest.
enum CatalogNaming {
    /// `entries` in natural name order (`precedes`), each name's sort key made once.
    static func sortedByName<T>(_ entries: [T], name: (T) -> String) -> [T] {
        guard entries.count > 1 else { return entries }
        // Already in order (the index gives names in byte order): no keys made.
        if entries.indices.dropLast().allSatisfy({ NaturalOrder.precedes(name(entries[$0]), name(entries[$0 + 1])) == true }) {
            return entries
        }
        let keys = entries.map { NaturalKey(name($0)) }
        return entries.indices.sorted { keys[$0].precedes(keys[$1]) }.map { entries[$0] }
    }

    /// `entries` (already in name order) by date taken, oldest first; photos without a date
    /// follow the dated ones in name order. "YYYY:MM:DD HH:MM:SS" texts compare as dates;
    /// a zero date ("0000:...", what some cameras write when unset) counts as none.
    static func sortedByDate<T>(_ entries: [T], name: (T) -> String, dates: [String: String]) -> [T] {
        let keyed = entries.enumerated().map { offset, entry -> (Int, String?) in
            let date = dates[name(entry)].flatMap { $0.hasPrefix("0000") || $0.isEmpty ? nil : $0 }
            return (offset, date)
        }
        let order = keyed.sorted { a, b in
            switch (a.1, b.1) {
            case let (x?, y?): return x != y ? x < y : a.0 < b.0
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.0 < b.0
            }
        }
        return order.map { entries[$0.0] }
    }

    /// "summer_beach-2024.jpg" -> "summer beach 2024".
    static func title(fromFileName name: String, dropExtension: Bool) -> String {
        var base = name
        if dropExtension, let dot = base.lastIndex(of: "."), dot != base.startIndex {
            base = String(base[..<dot])
        }
        let spaced = base.map { $0 == "_" || $0 == "-" ? " " : $0 }
        let words = String(spaced).split(separator: " ", omittingEmptySubsequences: true)
        let joined = words.joined(separator: " ")
        return joined.isEmpty ? name : joined
    }

    /// Natural order: case-insensitive, runs of digits compared as numbers ("img2" < "img10").
    static func precedes(_ a: String, _ b: String) -> Bool {
        NaturalKey(a).precedes(NaturalKey(b))
    }
}

/// A name prepared once for natural-order comparisons: sorting 100 names compares each
/// about 7 times, and lower-casing, splitting into scalars and asking each scalar whether it is
/// a digit on every comparison was most of a scan's time (275 ms of catalog building at 10,000
/// photos). The key is a list of numbers compared lexicographically: a scalar of the lower-cased
/// name is its value << 32; a run of ASCII digits is ('0' << 32 | its length without leading
/// zeros) followed by those digits, so runs compare as numbers ("img2" < "img10") and a run
/// against any other character compares as a digit does (no non-digit lies between '0' and '9').
struct NaturalKey {
    let original: String
    let tokens: [UInt64]

    init(_ name: String) {
        original = name
        var tokens: [UInt64] = []
        tokens.reserveCapacity(name.utf8.count)
        var digits: [UInt64] = []
        func flush() {
            guard !digits.isEmpty else { return }
            let significant = digits.drop { $0 == 0x30 }
            tokens.append(0x30 << 32 | UInt64(significant.count))
            tokens.append(contentsOf: significant)
            digits.removeAll(keepingCapacity: true)
        }
        func add(_ value: UInt32) {
            if value >= 0x30 && value <= 0x39 {
                digits.append(UInt64(value))
            } else {
                flush()
                tokens.append(UInt64(value) << 32)
            }
        }
        // Most names are ASCII: lower-cased byte by byte, without a lower-cased copy.
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in name.utf8 { add(UInt32(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)) }
        } else {
            for scalar in name.lowercased().unicodeScalars { add(scalar.value) }
        }
        flush()
        self.tokens = tokens
    }

    func precedes(_ other: NaturalKey) -> Bool {
        let x = tokens, y = other.tokens
        let n = min(x.count, y.count)
        var i = 0
        while i < n {
            if x[i] != y[i] { return x[i] < y[i] }
            i += 1
        }
        if x.count != y.count { return x.count < y.count }
        return original < other.original
    }
}
