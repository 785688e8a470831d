import Foundation
import Gallery

/// `gallery share ALBUM --root DIR [--cache-dir DIR] [--share-key FILE]`: prints the share
/// link path ("/s/<token>/") of an album, named by its folder path in the library ("Family/2024")
/// or by its id. The key is the one `gallery serve` uses (created on first use).
///
/// `gallery share --rotate [--grace 7d]` starts a new key while the old one keeps opening its
/// links for the grace period; `gallery share --revoke-all` starts a new key and ends every
/// link now. A running server notices either at its next share request.
enum ShareCommand {
    static func run(_ args: [String]) -> Int32 {
        var album: String?
        var values: [String: String] = [:]
        var flags = Set<String>()
        var rest = args[...]
        while let arg = rest.popFirst() {
            if ["--root", "--cache-dir", "--share-key", "--grace"].contains(arg) {
                guard let value = rest.popFirst() else {
                    printError("gallery share: \(arg) needs a value")
                    return 2
                }
                values[arg] = value
            } else if arg == "--rotate" || arg == "--revoke-all" {
                flags.insert(arg)
            } else if !arg.hasPrefix("--"), album == nil {
                album = arg
            } else {
                printError("gallery share: unexpected \(arg)\n\(usageText)")
                return 2
            }
        }
        let env = ProcessInfo.processInfo.environment
        let cacheDirectory = values["--cache-dir"] ?? env["GALLERY_CACHE_DIR"] ?? NSTemporaryDirectory() + "gallery-cache"
        let keyFile = values["--share-key"] ?? env["GALLERY_SHARE_KEY"]
        if !flags.isEmpty {
            guard flags.count == 1, album == nil else {
                printError("gallery share: --rotate and --revoke-all take no album and not each other\n\(usageText)")
                return 2
            }
            return changeKey(rotate: flags.contains("--rotate"), grace: values["--grace"], cacheDirectory: cacheDirectory, keyFile: keyFile)
        }
        guard let album, let root = values["--root"] ?? env["GALLERY_ROOT"] else {
            printError("gallery share: ALBUM and --root DIR are required\n\(usageText)")
            return 2
        }
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

    private static func changeKey(rotate: Bool, grace: String?, cacheDirectory: String, keyFile: String?) -> Int32 {
        var seconds = ShareLinkMaker.defaultGrace
        if let grace {
            guard rotate, let parsed = ShareLinkMaker.parseDuration(grace) else {
                printError("gallery share: --grace goes with --rotate and takes seconds or Nm, Nh, Nd up to 366d (got \(grace))")
                return 2
            }
            seconds = parsed
        }
        do {
            try FileManager.default.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
            if rotate {
                try ShareLinkMaker.rotate(cacheDirectory: cacheDirectory, keyFile: keyFile, grace: seconds, now: Int(Date().timeIntervalSince1970))
                print(seconds > 0
                      ? "new share key; links made before keep opening for \(seconds / 3600) h \(seconds % 3600 / 60) min"
                      : "new share key; links made before no longer open")
                print("make new links with: gallery share ALBUM --root DIR")
            } else {
                try ShareLinkMaker.revokeAll(cacheDirectory: cacheDirectory, keyFile: keyFile)
                print("new share key; every link made before no longer opens")
            }
            return 0
        } catch {
            printError("gallery share: \(error)")
            return 1
        }
    }
}
