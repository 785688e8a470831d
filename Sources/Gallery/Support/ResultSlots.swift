import Synchronization

/// Fixed slots filled from several threads (one writer per slot).
final class ResultSlots<T: Sendable>: Sendable {
    private let slots: Mutex<[T?]>
    init(count: Int) { slots = Mutex([T?](repeating: nil, count: count)) }
    func set(_ i: Int, _ value: T) { slots.withLock { $0[i] = value } }
    func get(_ i: Int) -> T? { slots.withLock { $0[i] } }
}
