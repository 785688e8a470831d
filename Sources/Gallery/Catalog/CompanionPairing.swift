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
/// `.mov` of its name as its Live Photo movie and a raw of its name as its raw original. A
/// movie or raw without such a still stays an item of its own, as does everything else.
enum CompanionPairing {
    static let stills: Set<String> = ["jpg", "jpeg", "heic", "heif", "hif"]
    static let liveMovies: Set<String> = ["mov"]
    static let raws = Set(ImageFiles.rawExtensions.map { String($0.dropFirst()) })

    /// The folder's items (in the given order, companions left out) and each item's companions by name.
    static func pair(_ images: [(name: String, stamp: FileStamp)]) -> (items: [(name: String, stamp: FileStamp)],
                                                                         companions: [String: [Companion]]) {
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
        return (items, companions)
    }
}
