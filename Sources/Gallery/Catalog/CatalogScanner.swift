import Foundation
import ImagePipeline
#if canImport(Glibc)
import Glibc
#endif

/// Builds a `Catalog` from a folder: each subfolder an album (nested), each photo an item (by
/// extension in any case, or by its magic bytes: `ImageFiles`), sorted by name.
/// Hidden entries are skipped; a symlink is followed only when it resolves inside the root.
///
/// Albums are the real folders: privacy and identity belong to a folder whatever path reaches
/// it. A symlinked folder whose target is listed at its own place (anything inside the root
/// but hidden folders) is skipped, so an alias never hides the real album nor shows it under
/// another name and privacy; an alias of a hidden folder is listed, private when its real
/// path is inside a private folder. A symlinked photo whose target is inside a private folder
/// is listed only in an album of that same private folder.
public struct CatalogScanner: Sendable {
    public var root: String
    public var siteTitle: String
    /// Deeper folders are ignored (guards against pathological trees).
    public var maxDepth = 24
    /// At most this many items are catalogued (the catalog keeps every photo in memory, about
    /// 100 bytes each in its packed table: `PackedItemTable`); a larger library is served
    /// up to here and the log says how many photos were left out. It was 200,000 when an item
    /// cost about 1 KB.
    public var maxItems = 2_000_000
    /// The order of photos in albums the manifest says nothing about (`--sort`). Default by name.
    public var defaultSort: AlbumSort = .name
    /// Dates taken ("YYYY:MM:DD HH:MM:SS") of the photos of one folder (relative path) by file
    /// name, from the library index; used only for albums sorted by date. nil: no dates known.
    public var datesTaken: (@Sendable (_ folder: String) -> [String: String])?
    /// Apple content identifiers of the stills and movies of one folder by file name, from the
    /// library index; asked only when a Live Photo movie and a still are left unpaired by name.
    public var contentIdentifiers: (@Sendable (_ folder: String) -> [String: String])?

    public init(root: String, siteTitle: String) {
        self.root = root
        self.siteTitle = siteTitle
    }

    /// What a scan found, plus a fingerprint of every entry's name, size and mtime: equal
    /// fingerprints mean nothing changed.
    public struct Result: Sendable {
        public var catalog: Catalog
        public var fingerprint: UInt64
        /// Problems worth logging (bad manifest, unreadable folders).
        public var warnings: [String]
        /// Folders (relative paths, "" for the root) that could not be listed: their photos
        /// are missing from this scan for no fault of theirs (`RemovalGuard`).
        public var unreadableFolders: Set<String> = []
        /// The manifest the catalog was made with (a per-folder patch needs its titles and order).
        var manifest: Manifest?
    }

    /// Walks the folder.
    public func scan() -> Result {
        build { relativePath, absolute, state in listFolder(relativePath: relativePath, absolute: absolute, realRoot: state.realRoot) }
    }

    /// The catalog of a listing remembered by the library index, without reading any folder:
    /// what the app serves at start while the indexer looks at the folder itself. The
    /// fingerprint differs from a scan's, so the first scan afterwards always replaces it.
    public func build(from listing: LibraryListing) -> Result {
        build(expected: listing.photoCount + listing.folders.count) { relativePath, _, state in
            guard let folder = listing.folders[relativePath] else { return FolderEntries() }
            let base = relativePath.isEmpty ? state.realRoot : state.realRoot + "/" + relativePath
            return FolderEntries(listed: folder, base: base)
        }
    }

    /// The catalog of the index's folders, each read when the walk reaches it (`IndexedFolders`):
    /// the same catalog as `build(from: index.listing())` without a listing of every photo.
    public func build(from folders: inout IndexedFolders) -> Result {
        build(expected: folders.expectedPhotos + folders.subfolders.count) { relativePath, _, state in
            guard let subfolders = folders.subfolders[relativePath] else { return FolderEntries() }
            let base = relativePath.isEmpty ? state.realRoot : state.realRoot + "/" + relativePath
            var listed = folders.photos(of: relativePath)
            listed.subfolders = subfolders
            return FolderEntries(listed: listed, base: base)
        }
    }

    /// One folder's albums and photos, as the file system or the index lists them.
    struct FolderEntries: Sendable {
        /// Names, with the real path (a symlinked folder is visited once).
        var subfolders: [(name: String, real: String)] = []
        var images: [(name: String, stamp: FileStamp)] = []
        /// Real paths of the photos that are symlinks, by name.
        var symlinkTargets: [String: String] = [:]
        /// XMP sidecars (regular files named `*.xmp` in any case, at most
        /// `FileIndexing.maxSidecarBytes`) by lowercased name.
        var sidecars: [String: SidecarFile] = [:]
        /// From the index's listing: the stamps of the sidecars its rows were read with, by
        /// photo name (their file names are not kept).
        var listedSidecars: [String: FileStamp] = [:]
        /// The folder's real path when listed from the file system (a symlinked folder is
        /// visited once); nil from the index.
        var real: String?
        /// Every entry's name, kind, size and mtime: equal values mean the folder is unchanged.
        var fingerprint: UInt64 = 0
        /// The folder could not be listed (`RemovalGuard`).
        var unreadable = false

        init(subfolders: [(name: String, real: String)] = [], images: [(name: String, stamp: FileStamp)] = []) {
            self.subfolders = subfolders
            self.images = images
        }

        /// A folder of the index's listing, below the real path `base`.
        init(listed folder: LibraryListing.Folder, base: String) {
            subfolders = folder.subfolders.map { ($0, base + "/" + $0) }
            images = folder.images
            listedSidecars = folder.sidecars
            var hash = FNV1a()
            hash.add(UInt64(folder.images.count))
            hash.add(UInt64(folder.subfolders.count))
            for image in folder.images {
                hash.add(image.name)
                hash.add(UInt64(image.stamp.size))
                hash.add(UInt64(bitPattern: Int64(image.stamp.mtimeNanoseconds)))
            }
            fingerprint = hash.value
        }
    }

    /// Builds the catalog with `list(relativePath, absolutePath, state)` giving each folder's
    /// entries: the file system (`scan`), the index (`build(from:)`), or the current snapshot's
    /// rows, where only changed folders are listed again (`FolderMarks.swift`).
    /// `expected`: about how many photos and folders will come, when the caller knows (the
    /// tables are made that big at once instead of growing by doubling).
    func build(expected: Int = 0, list: (String, String, inout ScanState) -> FolderEntries) -> Result {
        var state = ScanState()
        state.items.reserveCapacity(min(expected, maxItems))
        state.usedIDs.reserveCapacity(min(expected, maxItems))
        guard let realRoot = ImageFiles.realPath(root) else {
            return Result(catalog: .empty(siteTitle: siteTitle), fingerprint: 0, warnings: ["library root \(root) not found"],
                          unreadableFolders: [""])
        }
        state.realRoot = realRoot
        state.root = LibraryRoot(realRoot)
        state.items.useRoot(state.root)
        var manifest: Manifest?
        let manifestPath = realRoot + "/" + Manifest.fileName
        var st = stat()
        if lstat(manifestPath, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            state.mix(Manifest.fileName, UInt64(st.st_size), UInt64(bitPattern: Int64(st.st_mtim.tv_sec)), UInt64(st.st_mtim.tv_nsec))
            if Int(st.st_size) <= Manifest.maxBytes, let data = FileManager.default.contents(atPath: manifestPath) {
                do { manifest = try Manifest.parse(data) } catch { state.warnings.append("gallery.json ignored: \(error)") }
            } else {
                state.warnings.append("gallery.json ignored: unreadable or larger than \(Manifest.maxBytes) bytes")
            }
        }
        let title = manifest?.title ?? siteTitle
        let rootID = walk(relativePath: "", canonicalPath: "", parentID: nil, inherited: nil, depth: 0, state: &state,
                          manifest: manifest, title: title, list: list)
        if state.skippedAliases > 0 {
            state.warnings.append("\(state.skippedAliases) symlinks skipped: their targets are listed at their own place, or are private")
        }
        if state.beyondLimit > 0 {
            state.warnings.append("\(state.beyondLimit) photos not shown: the catalog holds at most \(maxItems) (it is kept in memory, "
                                  + "about 100 bytes a photo)")
        }
        addRemoteItems(manifest?.remote ?? [], rootID: rootID, state: &state, manifest: manifest)
        var catalog = Catalog(siteTitle: title, rootID: rootID, albums: state.albums, table: state.items.finish())
        catalog.showLocation = manifest?.showLocation ?? false
        return Result(catalog: catalog, fingerprint: state.fingerprint, warnings: state.warnings,
                      unreadableFolders: state.unreadableFolders, manifest: manifest)
    }

    /// What a scan step carries from folder to folder.
    struct ScanState {
        var realRoot = ""
        var root = LibraryRoot("")
        var albums: [String: CatalogAlbum] = [:]
        var items = PackedItemTable.Builder()
        /// The ids given so far, as their numbers (`PackedItemTable.key`): hashing 8 bytes
        /// instead of a string per photo.
        var usedIDs = Set<UInt64>()
        var visitedDirs = Set<String>()
        /// Symlinked folders and photos left out, for the log.
        var skippedAliases = 0
        /// Photos left out because the catalog reached `maxItems`, for the log.
        var beyondLimit = 0
        var unreadableFolders = Set<String>()
        var warnings: [String] = []
        var hash = FNV1a()
        /// The manifest's stamp plus each folder's `folderFingerprint`: a sum, so that one
        /// folder's change can be applied to it without walking the others.
        var fingerprint: UInt64 { hash.value &+ folders }
        var folders: UInt64 = 0

        /// `real` (a real path) relative to the real root: "" for the root, nil when outside it.
        func relativeToRoot(_ real: String) -> String? {
            if real == realRoot { return "" }
            guard real.hasPrefix(realRoot + "/") else { return nil }
            return String(real.dropFirst(realRoot.count + 1))
        }

        mutating func mix(_ name: String, _ values: UInt64...) {
            hash.add(name)
            for v in values { hash.add(v) }
        }

        /// The id number of the photo `name` in `folder`: `uniqueID("item:" + its path)`
        /// without making the path or the id's text unless ids collide.
        mutating func uniqueItemKey(folder: String, name: String) -> UInt64 {
            let key = StableID.itemNumber(folder: folder, name: name)
            if usedIDs.insert(key).inserted { return key }
            return PackedItemTable.key(uniqueID("item:" + (folder.isEmpty ? name : folder + "/" + name)))
        }

        /// A fresh id for `key`; on a collision the key is re-hashed with a counter.
        mutating func uniqueID(_ key: String) -> String {
            var id = StableID.make(key)
            var n = 1
            while !usedIDs.insert(PackedItemTable.key(id)).inserted {
                id = StableID.make(key + "#\(n)")
                n += 1
            }
            return id
        }
    }

    private enum EntryKind { case directory(String), image(FileStamp, symlinkTarget: String?), sidecar(FileStamp), other }

    /// A folder's share of the catalog's fingerprint.
    static func folderFingerprint(_ relativePath: String, _ entries: FolderEntries) -> UInt64 {
        folderFingerprint(relativePath, entries.fingerprint)
    }

    /// A folder's share of the catalog's fingerprint, from its listing's fingerprint.
    static func folderFingerprint(_ relativePath: String, _ fingerprint: UInt64) -> UInt64 {
        var hash = FNV1a()
        hash.add(relativePath)
        hash.add(fingerprint)
        return hash.value
    }

    /// The entries of one folder on disk (not sorted).
    func listFolder(relativePath: String, absolute: String, realRoot: String) -> FolderEntries {
        var entries = FolderEntries()
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: absolute) } catch {
            entries.unreadable = true
            return entries
        }
        entries.real = ImageFiles.realPath(absolute)
        var hash = FNV1a()
        for name in names where !name.hasPrefix(".") && !(relativePath.isEmpty && name == Manifest.fileName) {
            guard !name.contains("/"), name.utf8.count <= 255 else { continue }
            switch classify(absolute + "/" + name, realRoot: realRoot, hash: &hash, name: name) {
            case .directory(let real): entries.subfolders.append((name, real))
            case .image(let stamp, let target):
                entries.images.append((name, stamp))
                if let target { entries.symlinkTargets[name] = target }
            case .sidecar(let stamp):
                entries.sidecars[name.lowercased()] = SidecarFile(name: name, stamp: stamp)
            case .other: break
            }
        }
        entries.fingerprint = hash.value
        return entries
    }

    /// The album's order: its own manifest entry, else the manifest's, else `defaultSort`.
    func order(of relativePath: String, manifest: Manifest?) -> AlbumSort {
        if let own = manifest?.albums?[relativePath]?.sort.flatMap(AlbumSort.init(rawValue:)) { return own }
        if let site = manifest?.sort.flatMap(AlbumSort.init(rawValue:)) { return site }
        return defaultSort
    }

    /// The privacy an album hands down: the id of its topmost private album and the folder
    /// whose `"private": true` made it private.
    private struct Privacy {
        var rootID: String
        var mark: String
    }

    /// Scans one folder (reached by `relativePath`, really at `canonicalPath` below the root);
    /// returns its album id.
    private func walk(relativePath: String, canonicalPath: String, parentID: String?, inherited: Privacy?, depth: Int,
                      state: inout ScanState, manifest: Manifest?, title: String,
                      list: (String, String, inout ScanState) -> FolderEntries) -> String {
        let albumID = state.uniqueID("album:" + relativePath)
        let ownMark = manifest?.albums?[relativePath]?.private == true ? relativePath : nil
        let privacy = inherited ?? (manifest?.privateMark(of: canonicalPath) ?? ownMark).map { Privacy(rootID: albumID, mark: $0) }
        let privateRoot = privacy?.rootID
        let absolute = relativePath.isEmpty ? state.realRoot : state.realRoot + "/" + relativePath
        let entries = list(relativePath, absolute, &state)
        if entries.unreadable {
            state.unreadableFolders.insert(relativePath)
            state.warnings.append("folder \(relativePath.isEmpty ? "(the library)" : relativePath) cannot be read")
        }
        if let real = entries.real { state.visitedDirs.insert(real) }
        state.folders &+= Self.folderFingerprint(relativePath, entries)
        let subfolders = CatalogNaming.sortedByName(entries.subfolders, name: \.name)
        var images = CatalogNaming.sortedByName(entries.images, name: \.name)
        if order(of: relativePath, manifest: manifest) == .date, let datesTaken {
            images = CatalogNaming.sortedByDate(images, name: \.name, dates: datesTaken(relativePath))
        }

        images = images.filter { image in
            guard let target = entries.symlinkTargets[image.name],
                  !mayList(photoAt: target, in: privacy, state: state, manifest: manifest) else { return true }
            state.skippedAliases += 1
            return false
        }
        let paired = CompanionPairing.pair(images, contentIdentifiers: { contentIdentifiers?(relativePath) ?? [:] })

        var itemIDs = ItemIDList()
        var videoCount = 0
        let manifestItems = manifest?.items.flatMap { $0.isEmpty ? nil : $0 }
        var album: Int32?
        let firstRow = state.items.count
        for image in paired.items {
            guard state.items.count < maxItems else {
                state.beyondLimit += 1
                continue
            }
            let key = state.uniqueItemKey(folder: relativePath, name: image.name)
            let text = manifestItems?[relativePath.isEmpty ? image.name : relativePath + "/" + image.name]
            let sidecar = Self.sidecar(of: image.name, in: entries.sidecars)
                ?? entries.listedSidecars[image.name].map { SidecarFile(name: "", stamp: $0) }
            let number = album ?? state.items.album(albumID, folder: relativePath)
            album = number
            state.items.appendFile(key: key, album: number, name: image.name, stamp: image.stamp, givenTitle: nonEmpty(text?.title),
                                   caption: nonEmpty(text?.caption), companions: paired.companions[image.name] ?? [], sidecar: sidecar)
            if ImageFiles.isMovie(name: image.name) { videoCount += 1 }
        }
        if album != nil { itemIDs = state.items.ids(of: firstRow..<state.items.count) }
        var albumIDs: [String] = []
        if depth < maxDepth {
            for folder in subfolders where !state.visitedDirs.contains(folder.real) {
                let rel = relativePath.isEmpty ? folder.name : relativePath + "/" + folder.name
                guard let canonical = state.relativeToRoot(folder.real) else { continue }
                // An alias of a folder listed at its own place: the real album is the one.
                if canonical != rel && isListed(canonical) {
                    state.skippedAliases += 1
                    continue
                }
                let folderTitle = CatalogNaming.title(fromFileName: folder.name, dropExtension: false)
                albumIDs.append(walk(relativePath: rel, canonicalPath: canonical, parentID: albumID, inherited: privacy,
                                     depth: depth + 1, state: &state, manifest: manifest, title: folderTitle, list: list))
            }
        }
        let text = manifest?.albums?[relativePath]
        state.albums[albumID] = CatalogAlbum(
            id: albumID, parentID: parentID, relativePath: relativePath,
            title: relativePath.isEmpty ? title : (nonEmpty(text?.title) ?? title),
            caption: nonEmpty(text?.caption), albumIDs: albumIDs, itemIDs: itemIDs, videoCount: videoCount, privateRoot: privateRoot)
        state.albums[albumID]?.showsCaptions = text?.captions ?? manifest?.captions ?? false
        return albumID
    }

    /// Whether the folder at `canonical` (a real path below the root) is an album at its own
    /// place: no hidden folder on the way and not deeper than `maxDepth`.
    private func isListed(_ canonical: String) -> Bool {
        let components = canonical.split(separator: "/", omittingEmptySubsequences: true)
        return components.count <= maxDepth && !components.contains { $0.hasPrefix(".") }
    }

    /// Whether a symlinked photo whose real path is `target` may be listed in an album of
    /// `privacy`: always when the target is in no private folder, else only inside an album
    /// made private by that same folder (a public or differently shared album would publish it).
    private func mayList(photoAt target: String, in privacy: Privacy?, state: ScanState, manifest: Manifest?) -> Bool {
        guard let canonical = state.relativeToRoot(target) else { return false }
        guard let mark = manifest?.privateMark(of: canonical) else { return true }
        return privacy?.mark == mark
    }

    /// What an entry is, following a symlink only when its target lies inside the root.
    private func classify(_ path: String, realRoot: String, hash: inout FNV1a, name: String) -> EntryKind {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .other }
        var mode = st.st_mode & S_IFMT
        var realDir = path
        var symlinkTarget: String?
        if mode == S_IFLNK {
            guard let real = ImageFiles.realPath(path),
                  real == realRoot || real.hasPrefix(realRoot + "/"),
                  stat(path, &st) == 0 else { return .other }
            mode = st.st_mode & S_IFMT
            realDir = real
            symlinkTarget = real
        }
        hash.add(name)
        for v in [UInt64(mode), UInt64(bitPattern: Int64(st.st_size)), UInt64(bitPattern: Int64(st.st_mtim.tv_sec)), UInt64(st.st_mtim.tv_nsec)] {
            hash.add(v)
        }
        if mode == S_IFDIR {
            return .directory(ImageFiles.realPath(realDir) ?? realDir)
        }
        guard mode == S_IFREG, st.st_size > 0 else { return .other }
        let stamp = FileStamp(size: Int(st.st_size), mtimeSeconds: Int(st.st_mtim.tv_sec),
                              mtimeNanoseconds: Int(st.st_mtim.tv_nsec), inode: UInt64(st.st_ino))
        if name.lowercased().hasSuffix(".xmp") {
            return symlinkTarget == nil && stamp.size <= FileIndexing.maxSidecarBytes ? .sidecar(stamp) : .other
        }
        if ImageFiles.isImage(path: path, name: name) {
            return .image(FileStamp(size: Int(st.st_size), mtimeSeconds: Int(st.st_mtim.tv_sec),
                                    mtimeNanoseconds: Int(st.st_mtim.tv_nsec), inode: UInt64(st.st_ino)), symlinkTarget: symlinkTarget)
        }
        return .other
    }

    /// The sidecar of the photo `name`: darktable's `name.xmp` first, then Lightroom's and
    /// digiKam's `base.xmp`, matched without regard to case.
    static func sidecar(of name: String, in sidecars: [String: SidecarFile]) -> SidecarFile? {
        guard !sidecars.isEmpty else { return nil }
        let lower = name.lowercased()
        if let own = sidecars[lower + ".xmp"] { return own }
        guard let dot = lower.lastIndex(of: ".") else { return nil }
        return sidecars[lower[..<dot] + ".xmp"]
    }

    private func addRemoteItems(_ remote: [Manifest.RemoteItem], rootID: String, state: inout ScanState, manifest: Manifest?) {
        for entry in remote where state.items.count < maxItems {
            guard Manifest.isAcceptableRemoteURL(entry.url) else {
                state.warnings.append("gallery.json: remote item skipped (not an http(s) URL): \(entry.url.prefix(120))")
                continue
            }
            let albumName = nonEmpty(entry.album) ?? "Remote"
            let albumID = remoteAlbum(named: albumName, rootID: rootID, state: &state, manifest: manifest)
            let id = state.uniqueID("url:" + entry.url)
            let item = CatalogItem(id: id, albumID: albumID, givenTitle: nonEmpty(entry.title), caption: nonEmpty(entry.caption),
                                   source: .remote(url: entry.url), stamp: nil)
            state.items.append(item)
            state.albums[albumID]?.itemIDs.append(id)
            if ImageFiles.isMovie(name: item.fileName) { state.albums[albumID]?.videoCount += 1 }
        }
    }

    /// The album at relative path `name`, created under the root when missing.
    private func remoteAlbum(named name: String, rootID: String, state: inout ScanState, manifest: Manifest?) -> String {
        if let existing = state.albums.values.first(where: { $0.relativePath == name }) { return existing.id }
        let id = state.uniqueID("album:" + name)
        let text = manifest?.albums?[name]
        let privateRoot = state.albums[rootID]?.privateRoot ?? (text?.private == true ? id : nil)
        state.albums[id] = CatalogAlbum(id: id, parentID: rootID, relativePath: name,
                                        title: nonEmpty(text?.title) ?? name, caption: nonEmpty(text?.caption),
                                        albumIDs: [], itemIDs: [], privateRoot: privateRoot)
        state.albums[rootID]?.albumIDs.append(id)
        return id
    }

    func nonEmpty(_ text: String?) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A cheap change detector: the mtimes of every folder (a folder's mtime moves when an
    /// entry is added, removed or renamed) and of the manifest, without a stat per file.
    /// Symlinked folders and files rewritten in place are caught by the periodic full scan.
    public func directoryFingerprint() -> UInt64 {
        guard let realRoot = ImageFiles.realPath(root) else { return 0 }
        var hash = FNV1a()
        func mix(_ v: UInt64) { hash.add(v) }
        var st = stat()
        if stat(realRoot + "/" + Manifest.fileName, &st) == 0 {
            mix(UInt64(bitPattern: Int64(st.st_mtim.tv_sec))); mix(UInt64(st.st_mtim.tv_nsec)); mix(UInt64(st.st_size))
        }
        var stack: [(String, Int)] = [(realRoot, 0)]
        while let (dir, depth) = stack.popLast() {
            guard lstat(dir, &st) == 0 else { continue }
            for b in dir.utf8 { mix(UInt64(b)) }
            mix(UInt64(bitPattern: Int64(st.st_mtim.tv_sec))); mix(UInt64(st.st_mtim.tv_nsec))
            guard depth < maxDepth, let handle = opendir(dir) else { continue }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                guard !name.hasPrefix(".") else { continue }
                let type = entry.pointee.d_type
                if type == UInt8(DT_DIR) {
                    stack.append((dir + "/" + name, depth + 1))
                } else if type == UInt8(DT_UNKNOWN), lstat(dir + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                    stack.append((dir + "/" + name, depth + 1))
                }
            }
            closedir(handle)
        }
        return hash.value
    }
}
