import Synchronization

/// A thread-safe dictionary of facts that can be learned again (versions, probed headers,
/// verified files), bounded by starting over: once `limit` entries are held, the next insert
/// clears it first. Cheaper than LRU bookkeeping on every hit, and a miss only costs the work
/// of learning the fact again.
public final class BoundedMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let table = Mutex<[Key: Value]>([:])
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    public subscript(key: Key) -> Value? { table.withLock { $0[key] } }

    public func set(_ value: Value, for key: Key) {
        table.withLock { map in
            if map.count >= limit, map[key] == nil { map.removeAll(keepingCapacity: true) }
            map[key] = value
        }
    }

    /// Stores `value` unless `keep(current)` says the present entry wins.
    public func set(_ value: Value, for key: Key, unless keep: (Value) -> Bool) {
        table.withLock { map in
            if let current = map[key], keep(current) { return }
            if map.count >= limit, map[key] == nil { map.removeAll(keepingCapacity: true) }
            map[key] = value
        }
    }

    public func remove(_ key: Key) {
        table.withLock { _ = $0.removeValue(forKey: key) }
    }
}
