import Synchronization

/// Encoded renders in memory, keyed by source URL + URL version + size + format, bounded by the
/// sum of their byte sizes and evicted least-recently-used first.
final class RenderCache: Sendable {
    /// A doubly linked LRU list kept in arrays: slots are reused, so a hit allocates nothing.
    private struct State {
        var index: [String: Int] = [:]
        var keys: [String] = []
        var values: [RenderedImage?] = []
        var prev: [Int] = []
        var next: [Int] = []
        var free: [Int] = []
        /// Most and least recently used slots, -1 when empty.
        var head = -1
        var tail = -1
        var bytes = 0

        mutating func unlink(_ i: Int) {
            if prev[i] >= 0 { next[prev[i]] = next[i] } else { head = next[i] }
            if next[i] >= 0 { prev[next[i]] = prev[i] } else { tail = prev[i] }
            prev[i] = -1
            next[i] = -1
        }

        mutating func pushFront(_ i: Int) {
            prev[i] = -1
            next[i] = head
            if head >= 0 { prev[head] = i }
            head = i
            if tail < 0 { tail = i }
        }

        mutating func remove(_ i: Int) {
            unlink(i)
            bytes -= values[i]?.bytes.count ?? 0
            index[keys[i]] = nil
            keys[i] = ""
            values[i] = nil
            free.append(i)
        }
    }

    /// Byte budget of all cached renders.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    static func key(url: String, version: String, spec: SizeSpec, format: RenderFormat = .standard) -> String {
        "\(url)|\(version)|\(spec)\(format.urlSuffix)"
    }

    func get(_ key: String) -> RenderedImage? {
        state.withLock { s in
            guard let i = s.index[key] else { return nil }
            s.unlink(i)
            s.pushFront(i)
            return s.values[i]
        }
    }

    /// Stores `value`, evicting the least recently used renders to stay within the budget.
    /// A render larger than the whole budget is not kept.
    func put(_ key: String, _ value: RenderedImage) {
        let cost = value.bytes.count
        guard cost <= capacity else { return }
        state.withLock { s in
            if let old = s.index[key] { s.remove(old) }
            while s.bytes + cost > capacity, s.tail >= 0 { s.remove(s.tail) }
            let i: Int
            if let slot = s.free.popLast() {
                i = slot
                s.keys[i] = key
                s.values[i] = value
            } else {
                i = s.keys.count
                s.keys.append(key)
                s.values.append(value)
                s.prev.append(-1)
                s.next.append(-1)
            }
            s.index[key] = i
            s.bytes += cost
            s.pushFront(i)
        }
    }

    /// Bytes held now.
    var bytes: Int { state.withLock { $0.bytes } }
    /// Renders held now.
    var count: Int { state.withLock { $0.index.count } }
}
