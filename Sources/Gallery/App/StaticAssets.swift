import Foundation

/// URLs of the files under `public/`, with a content hash in the query so nginx can send them
/// with a year of caching and a change still reaches browsers.
struct StaticAssets: Sendable {
    private let versions: [String: String]
    let prefix: String

    init(directory: String, prefix: String) {
        self.prefix = prefix.hasSuffix("/") ? prefix : prefix + "/"
        var versions: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where !name.hasPrefix(".") {
            if let data = FileManager.default.contents(atPath: directory + "/" + name) {
                var hash = FNV1a()
                hash.add(bytes: data)
                versions[name] = String(String(hash.value, radix: 16).prefix(10))
            }
        }
        self.versions = versions
    }

    func url(_ name: String) -> String {
        if let v = versions[name] { return prefix + name + "?v=" + v }
        return prefix + name
    }
}
