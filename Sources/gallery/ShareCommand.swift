import Foundation
import Gallery

/// `gallery share ALBUM --root DIR [--cache-dir DIR] [--share-key FILE]`: prints the share
/// link path ("/s/<token>/") of an album, named by its folder path in the library ("Family/2024")
/// or by its id. The key is the one `gallery serve` uses (created on first use).
enum ShareCommand {
    static func run(_ args: [String]) -> Int32 {
        var album: String?
        var values: [String: String] = [:]
        var rest = args[...]
        while let arg = rest.popFirst() {
            if ["--root", "--cache-dir", "--share-key"].contains(arg) {
                guard let value = rest.popFirst() else {
                    printError("gallery share: \(arg) needs a value")
                    return 2
                }
                values[arg] = value
            } else if !arg.hasPrefix("--"), album == nil {
                album = arg
            } else {
                printError("gallery share: unexpected \(arg)\n\(usageText)")
                return 2
            }
        }
        let env = ProcessInfo.processInfo.environment
        guard let album, let root = values["--root"] ?? env["GALLERY_ROOT"] else {
            printError("gallery share: ALBUM and --root DIR are required\n\(usageText)")
            return 2
        }
        let cacheDirectory = values["--cache-dir"] ?? env["GALLERY_CACHE_DIR"] ?? NSTemporaryDirectory() + "gallery-cache"
        let keyFile = values["--share-key"] ?? env["GALLERY_SHARE_KEY"]
        do {
            try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
            let link = try ShareLinkMaker.link(album: album, root: root, cacheDirectory: cacheDirectory, keyFile: keyFile)
            print(link.path)
            if !link.isPrivate {
                printError("note: '\(link.title)' is public; the link opens it and its public albums without the site around it")
            }
            return 0
        } catch {
            printError("gallery share: \(error)")
            return 1
        }
    }
}
