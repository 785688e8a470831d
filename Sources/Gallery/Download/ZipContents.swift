import Foundation
import ImagePipeline

/// Which files an album's ZIP holds and under which names: the album's photos in its order
/// inside a folder named after the album, and with `subalbums` every album below it as a
/// folder of its own (nested as on disk). Remote photos are included when the disk cache
/// holds their original, and left out otherwise (the download never waits for an origin).
enum ZipContents {
    static func entries(albumID: String, subalbums: Bool, catalog: Catalog, pipeline: ImagePipeline) -> [ZipEntry] {
        guard let album = catalog.albums[albumID] else { return [] }
        var out: [ZipEntry] = []
        var stack: [(id: String, folder: String, depth: Int)] = [(albumID, folderName(album, catalog: catalog), 0)]
        var seen = Set<String>()
        while let (id, folder, depth) = stack.popLast() {
            guard seen.insert(id).inserted, let album = catalog.albums[id] else { continue }
            var usedNames = Set<String>()
            for itemID in album.itemIDs {
                guard let item = catalog.items[itemID], let file = source(of: item, pipeline: pipeline) else { continue }
                let name = unique(component(item.fileName), in: &usedNames)
                out.append(ZipEntry(name: Array((folder + "/" + name).utf8), size: file.size, modified: file.modified,
                                    path: file.path, root: file.root))
                // A Live Photo's movie and a raw shot with the photo go with it.
                for companion in item.companions {
                    guard case .file(_, let root) = item.source, let url = item.companionURL(companion) else { continue }
                    let companionName = unique(component(companion.name), in: &usedNames)
                    out.append(ZipEntry(name: Array((folder + "/" + companionName).utf8), size: companion.stamp.size,
                                        modified: companion.stamp.mtimeSeconds, path: String(url.dropFirst("file://".count)), root: root.path))
                }
            }
            guard subalbums, depth < 24 else { continue }
            // Pushed in reverse so that they pop (and appear in the archive) in album order.
            for childID in album.albumIDs.reversed() {
                guard let child = catalog.albums[childID] else { continue }
                let name = unique(folderName(child, catalog: catalog), in: &usedNames)
                stack.append((childID, folder + "/" + name, depth + 1))
            }
        }
        return out
    }

    /// The file behind `item`: the library file, or the disk-cached remote original.
    private static func source(of item: CatalogItem, pipeline: ImagePipeline) -> (path: String, root: String?, size: Int, modified: Int)? {
        switch item.source {
        case .file(let rel, let root):
            let absolutePath = root.path + "/" + rel
            guard let size = item.fileSize else { return nil }
            return (absolutePath, root.path, size, item.modified ?? 0)
        case .remote(let url):
            guard let cached = pipeline.cachedOriginalFile(url: url) else { return nil }
            return (cached.path, nil, cached.length, Int(cached.fetchedAt))
        }
    }

    /// The album's folder name: its folder's own name (the site title for the root).
    static func folderName(_ album: CatalogAlbum, catalog: Catalog) -> String {
        let last = album.relativePath.split(separator: "/").last.map(String.init)
        return component(last ?? catalog.siteTitle)
    }

    /// One path component safe to unpack anywhere: no separators, control characters or
    /// characters Windows refuses, never "." or "..", at most 200 bytes.
    static func component(_ text: String) -> String {
        var out = String(text.unicodeScalars.map { s -> Character in
            s.value < 0x20 || s.value == 0x7f || "/\\:*?\"<>|".unicodeScalars.contains(s) ? "_" : Character(s)
        })
        while out.utf8.count > 200 { out.removeLast() }
        out = out.trimmingCharacters(in: .whitespaces)
        if out.isEmpty || out.allSatisfy({ $0 == "." }) { return "_" }
        return out
    }

    /// `name`, or "name (2).ext", "name (3).ext"... when the folder already holds it (compared
    /// without case, as Windows and macOS unpack).
    static func unique(_ name: String, in used: inout Set<String>) -> String {
        var candidate = name
        var n = 2
        while used.contains(candidate.lowercased()) {
            if let dot = name.lastIndex(of: "."), dot != name.startIndex {
                candidate = "\(name[..<dot]) (\(n))\(name[dot...])"
            } else {
                candidate = "\(name) (\(n))"
            }
            n += 1
        }
        used.insert(candidate.lowercased())
        return candidate
    }
}
