import ImagePipeline

/// A second file that belongs to an item: the movie of a Live Photo (`IMG_1234.HEIC` with
/// `IMG_1234.MOV`), or the camera raw shot together with a JPEG (`IMG_1234.CR3` with
/// `IMG_1234.JPG`). The item shows the still; the companion is served beside it and goes into
/// the album's ZIP with it, and is never listed as an item of its own.
public struct Companion: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        /// A Live Photo's movie: the page plays it on demand.
        case live
        /// The raw original of a JPEG or HEIC shot together with it.
        case raw
    }

    public var role: Role
    /// The companion's file name, in the item's folder.
    public var name: String
    public var stamp: FileStamp

    public init(role: Role, name: String, stamp: FileStamp) {
        self.role = role
        self.name = name
        self.stamp = stamp
    }
}

/// Pairs the files of one folder by base name (case ignored): a still (JPEG or HEIF) takes the
/// `.mov` of its name as its Live Photo movie and a raw of its name as its raw original. Then a
/// `.mov` left over takes the still left without a movie whose Apple content identifier is the
/// movie's (the maker note's media group UUID in the still, the QuickTime content identifier in
/// the movie: an export or a copy renamed one of the two). A movie or raw without such a still
/// stays an item of its own, as does everything else.
enum CompanionPairing {
    static let stills: Set<String> = ["jpg", "jpeg", "heic", "heif", "hif"]
    static let liveMovies: Set<String> = ["mov"]
    static let raws = Set(ImageFiles.rawExtensions.map { String($0.dropFirst()) })

    /// The folder's items (in the given order, companions left out) and each item's companions by
    /// name. `contentIdentifiers` gives the identifiers the index knows by file name; it is asked
    /// only when a `.mov` and a still are left unpaired by name.
    static func pair(_ images: [(name: String, stamp: FileStamp)], contentIdentifiers: () -> [String: String] = { [:] })
        -> (items: [(name: String, stamp: FileStamp)], companions: [String: [Companion]]) {
        // Most folders hold no movie and no raw: nothing pairs, and splitting and lower-casing
        // every name (a catalog build does it for each photo) is skipped.
        guard images.contains(where: { mayBeCompanion($0.name) }) else { return (images, [:]) }
        func split(_ name: String) -> (base: String, ext: String)? {
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
            return (name[..<dot].lowercased(), name[name.index(after: dot)...].lowercased())
        }
        // The first still of each base name is the one its companions attach to.
        var stillOf: [String: String] = [:]
        for image in images {
            guard let (base, ext) = split(image.name), stills.contains(ext), stillOf[base] == nil else { continue }
            stillOf[base] = image.name
        }
        guard !stillOf.isEmpty else { return (images, [:]) }
        var companions: [String: [Companion]] = [:]
        var items: [(name: String, stamp: FileStamp)] = []
        items.reserveCapacity(images.count)
        for image in images {
            if let (base, ext) = split(image.name), let still = stillOf[base] {
                let role: Companion.Role? = liveMovies.contains(ext) ? .live : raws.contains(ext) ? .raw : nil
                if let role, !(companions[still]?.contains { $0.role == role } ?? false) {
                    companions[still, default: []].append(Companion(role: role, name: image.name, stamp: image.stamp))
                    continue
                }
            }
            items.append(image)
        }
        return pairByIdentifier(items, companions, contentIdentifiers)
    }

    /// Whether `name` ends in a Live Photo movie's or a raw's extension (any case).
    static func mayBeCompanion(_ name: String) -> Bool {
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let ext = name.utf8[name.utf8.index(after: dot)...]
        guard (1...4).contains(ext.count) else { return false }
        // The extension's bytes, lower-cased, as one number: no string made per name.
        var packed: UInt32 = 0
        for byte in ext { packed = packed << 8 | UInt32(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
        return companionEndings.contains(packed)
    }

    /// `liveMovies` and `raws` packed as `mayBeCompanion` packs a name's extension.
    private static let companionEndings = Set(liveMovies.union(raws).map { $0.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } })

    /// The second pass: unpaired movies to unpaired stills with the same content identifier.
    private static func pairByIdentifier(_ items: [(name: String, stamp: FileStamp)], _ companions: [String: [Companion]],
                                         _ contentIdentifiers: () -> [String: String])
        -> (items: [(name: String, stamp: FileStamp)], companions: [String: [Companion]]) {
        func ext(_ name: String) -> String? { name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } }
        let movies = items.filter { ext($0.name).map(liveMovies.contains) ?? false }
        let lonely = items.filter { item in
            (ext(item.name).map(stills.contains) ?? false) && !(companions[item.name]?.contains { $0.role == .live } ?? false)
        }
        guard !movies.isEmpty, !lonely.isEmpty else { return (items, companions) }
        let identifiers = contentIdentifiers()
        var stillByIdentifier: [String: String] = [:]
        for still in lonely {
            // An identifier two stills share pairs neither: which one the movie belongs to is unknown.
            guard let id = identifiers[still.name]?.uppercased() else { continue }
            stillByIdentifier[id] = stillByIdentifier[id] == nil ? still.name : ""
        }
        var companions = companions
        var taken = Set<String>()
        for movie in movies {
            guard let id = identifiers[movie.name]?.uppercased(), let still = stillByIdentifier[id], !still.isEmpty else { continue }
            stillByIdentifier[id] = ""
            companions[still, default: []].append(Companion(role: .live, name: movie.name, stamp: movie.stamp))
            taken.insert(movie.name)
        }
        return taken.isEmpty ? (items, companions) : (items.filter { !taken.contains($0.name) }, companions)
    }
}
