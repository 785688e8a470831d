import Foundation
import Synchronization

/// Fixed slots filled from several threads (one writer per slot).
final class ResultSlots<T: Sendable>: Sendable {
    private let slots: Mutex<[T?]>
    init(count: Int) { slots = Mutex([T?](repeating: nil, count: count)) }
    func set(_ i: Int, _ value: T) { slots.withLock { $0[i] = value } }
    func get(_ i: Int) -> T? { slots.withLock { $0[i] } }
}

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
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for b in data { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
                versions[name] = String(String(hash, radix: 16).prefix(10))
            }
        }
        self.versions = versions
    }

    func url(_ name: String) -> String {
        if let v = versions[name] { return prefix + name + "?v=" + v }
        return prefix + name
    }
}

/// Dominant colours of items, learned when their cover thumbnail is rendered, shown as the
/// background of the grid cell while the thumbnail loads.
final class PlaceholderColors: Sendable {
    private let colors = Mutex<[String: String]>([:])
    /// Bounded memory: past this many entries the map starts over.
    private let limit = 200_000

    func color(for key: String) -> String? { colors.withLock { $0[key] } }

    func set(_ color: String, for key: String) {
        colors.withLock { map in
            if map.count >= limit { map.removeAll(keepingCapacity: true) }
            map[key] = color
        }
    }
}

/// Human-readable byte counts: "812 KB", "4.2 MB".
func formatBytes(_ n: Int) -> String {
    if n < 1000 { return "\(n) bytes" }
    if n < 1_000_000 { return "\((n + 500) / 1000) KB" }
    return String(format: "%.1f MB", Double(n) / 1_000_000)
}
