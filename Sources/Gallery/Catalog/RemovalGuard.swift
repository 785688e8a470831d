/// Keeps a library from being lost to a mount that came up empty: a scan that would drop a
/// large part of the library at once is held back instead of applied.
///
/// A scan is *suspect* when, against the catalog served now:
/// - the library root is unreadable, or empty while the catalog has photos;
/// - a top-level folder that had at least `minimumPhotos` photos is unreadable, empty or gone;
/// - any album that held at least `minimumPhotos` photos of its own holds none now (its folder
///   emptied at once; judged the same whether a full scan or a per-folder change found it);
/// - it would remove more than `maxShare` of the library's photos, and at least
///   `minimumPhotos` of them.
///
/// A suspect scan is not served and not indexed: the previous catalog stays, so the index keeps
/// its rows, and the next scan is judged again, so the photos come back as soon as the mount
/// does. Removals that are real (an album of thousands deleted on purpose) are applied once the
/// operator says so (`gallery index --accept-removals`, which leaves a file the server finds).
public struct RemovalGuard: Sendable {
    public var maxShare = 0.10
    public var minimumPhotos = 50

    public init(maxShare: Double = 0.10, minimumPhotos: Int = 50) {
        self.maxShare = maxShare
        self.minimumPhotos = minimumPhotos
    }

    /// Why the scan `next` (with the folders it could not read) is suspect against `current`,
    /// or nil when it may be applied.
    public func problem(current: Catalog, next: Catalog, unreadable: Set<String>) -> String? {
        let before = current.fileItemCount
        guard before > 0 else { return nil }
        if unreadable.contains("") { return "the library folder cannot be read" }
        let after = next.fileItemCount
        if after == 0 { return "the library folder holds no photos now (it had \(before)); an empty mount?" }
        let nextTop = Dictionary(next.root.albumIDs.compactMap { next.albums[$0] }.map { ($0.relativePath, $0.id) },
                                 uniquingKeysWith: { a, _ in a })
        for albumID in current.root.albumIDs {
            guard let album = current.albums[albumID] else { continue }
            let had = current.totalItemCount(of: albumID)
            guard had >= minimumPhotos else { continue }
            if unreadable.contains(album.relativePath) { return "folder \(album.relativePath) cannot be read (it had \(had) photos)" }
            let now = nextTop[album.relativePath].map { next.totalItemCount(of: $0) } ?? 0
            if now == 0 { return "folder \(album.relativePath) holds no photos now (it had \(had)); an empty mount?" }
        }
        for album in current.albums.values where album.itemIDs.count >= minimumPhotos {
            guard next.albumID(at: album.relativePath).flatMap({ next.albums[$0] })?.itemIDs.isEmpty ?? true else { continue }
            // Counted only for an album that is empty now: a scan of a large library judges
            // a thousand albums, and only the emptied ones need their photos looked at.
            let had = album.itemIDs.count(where: { current.items[$0]?.relativePath != nil })
            if had >= minimumPhotos { return "album \(album.relativePath) holds no photos now (it had \(had)); an empty mount?" }
        }
        let removed = before - min(before, after)
        if removed >= minimumPhotos && Double(removed) > maxShare * Double(before) {
            return "\(removed) of \(before) photos would go at once (more than \(Int(maxShare * 100)) %)"
        }
        return nil
    }

    /// The file whose presence says the operator accepts the removals a suspect scan holds back.
    public static func acceptFile(indexPath: String) -> String { indexPath + ".accept-removals" }
}

extension Catalog {
    /// Photos that are library files (remote items are not the folder's to lose).
    var fileItemCount: Int { items.fileCount }
}
