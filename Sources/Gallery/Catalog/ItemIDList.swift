/// An album's photo ids in page order, kept as their 48-bit numbers (`StableID`): 8 bytes a
/// photo where a `[String]` took 16 (the 12 characters fit a String inline, in 16 bytes), so
/// 8 MB less at a million photos. An id of another shape (a test's "a", a hand-made catalog's)
/// is kept as text beside the numbers. Reads as a collection of id texts, each made on access;
/// `firstIndex(of:)` and `contains` compare numbers instead.
///
/// A catalog build's album lists no numbers at all: its photos' rows are contiguous in the
/// item table, in page order, so the list is that span of the shared rows (`SharedRows`) and
/// reads each id from its row: 8 MB less again at a million photos. It becomes a list of
/// numbers when appended to, and a patch that copies the rows makes it one (`detached`), so
/// that the rows it left are freed.
public struct ItemIDList: RandomAccessCollection, ExpressibleByArrayLiteral, Equatable, Sendable, CustomStringConvertible {
    public typealias Indices = Range<Int>

    private var values: [UInt64] = []
    /// Texts of ids not of the `StableID` shape, by position (`values` holds `other` there).
    private var others: [Int: String] = [:]
    private static let other = UInt64.max
    /// Or the ids of these rows (`values` is then empty).
    private var shared: SharedRows?
    private var span: Range<Int> = 0..<0

    public init() {}

    /// The ids of `span` of `rows`, in that order.
    init(rows: SharedRows, span: Range<Int>) {
        shared = rows
        self.span = span
    }

    /// Whether the list reads its ids from `rows`.
    func reads(_ rows: SharedRows) -> Bool { shared === rows }

    /// The same ids as a list of numbers of its own.
    func detached() -> ItemIDList {
        guard shared != nil else { return self }
        var list = ItemIDList()
        list.values.reserveCapacity(count)
        for i in indices {
            if let value = number(at: i) {
                list.values.append(value)
            } else {
                list.others[i] = self[i]
                list.values.append(Self.other)
            }
        }
        return list
    }

    public init<S: Sequence>(_ ids: S) where S.Element == String {
        for id in ids { append(id) }
    }

    public init(arrayLiteral ids: String...) { self.init(ids) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { shared == nil ? values.count : span.count }
    public var indices: Range<Int> { 0..<endIndex }

    public subscript(position: Int) -> String {
        if let shared {
            precondition(position >= 0 && position < span.count, "index out of range")
            let row = shared[span.lowerBound + position]
            return row.flags & PackedItemTable.hashed != 0 ? row.extras?.idText ?? "" : StableID.text(row.key)
        }
        let value = values[position]
        return value == Self.other ? others[position] ?? "" : StableID.text(value)
    }

    /// The number at `position`, nil for an id of another shape.
    private func number(at position: Int) -> UInt64? {
        if let shared {
            let row = shared[span.lowerBound + position]
            return row.flags & PackedItemTable.hashed != 0 ? nil : row.key
        }
        let value = values[position]
        return value == Self.other ? nil : value
    }

    public static func == (a: ItemIDList, b: ItemIDList) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count {
            let x = a.number(at: i), y = b.number(at: i)
            guard x == y, x != nil || a[i] == b[i] else { return false }
        }
        return true
    }

    public mutating func append(_ id: String) {
        if shared != nil { self = detached() }
        if let value = StableID.value(id) {
            values.append(value)
        } else {
            others[values.count] = id
            values.append(Self.other)
        }
    }

    public mutating func reserveCapacity(_ count: Int) {
        if shared == nil { values.reserveCapacity(count) }
    }

    /// The position of `id` (a photo page asks for its place in the album).
    public func firstIndex(of id: String) -> Int? {
        if shared != nil {
            let value = StableID.value(id)
            return indices.first { value != nil ? number(at: $0) == value : number(at: $0) == nil && self[$0] == id }
        }
        guard let value = StableID.value(id) else { return others.filter { $0.value == id }.keys.min() }
        return values.firstIndex(of: value)
    }

    public func contains(_ id: String) -> Bool { firstIndex(of: id) != nil }

    public var description: String { Array(self).description }
}

extension StableID {
    /// The number of an id of the `StableID` shape (12 lowercase hex digits), nil for any other text.
    static func value(_ id: String) -> UInt64? {
        var value: UInt64 = 0
        var count = 0
        for byte in id.utf8 {
            count += 1
            guard count <= 12 else { return nil }
            switch byte {
            case 0x30...0x39: value = value << 4 | UInt64(byte - 0x30)
            case 0x61...0x66: value = value << 4 | UInt64(byte - 0x61 + 10)
            default: return nil
            }
        }
        return count == 12 ? value : nil
    }

    /// The id text of a 48-bit number (as `make` writes it).
    static func text(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 12) { out in
            for i in 0..<12 {
                let nibble = UInt8(truncatingIfNeeded: value >> (UInt64(i) * 4)) & 0xf
                out[11 - i] = nibble < 10 ? 0x30 + nibble : 0x57 + nibble
            }
            return 12
        }
    }
}
