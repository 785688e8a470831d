/// An album's photo ids in page order, kept as their 48-bit numbers (`StableID`): 8 bytes a
/// photo where a `[String]` took 16 (the 12 characters fit a String inline, in 16 bytes), so
/// 8 MB less at a million photos. An id of another shape (a test's "a", a hand-made catalog's)
/// is kept as text beside the numbers. Reads as a collection of id texts, each made on access;
/// `firstIndex(of:)` and `contains` compare numbers instead.
public struct ItemIDList: RandomAccessCollection, ExpressibleByArrayLiteral, Equatable, Sendable, CustomStringConvertible {
    public typealias Indices = Range<Int>

    private var values: [UInt64] = []
    /// Texts of ids not of the `StableID` shape, by position (`values` holds `other` there).
    private var others: [Int: String] = [:]
    private static let other = UInt64.max

    public init() {}

    public init<S: Sequence>(_ ids: S) where S.Element == String {
        for id in ids { append(id) }
    }

    public init(arrayLiteral ids: String...) { self.init(ids) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { values.count }
    public var indices: Range<Int> { 0..<values.count }

    public subscript(position: Int) -> String {
        let value = values[position]
        return value == Self.other ? others[position] ?? "" : StableID.text(value)
    }

    public mutating func append(_ id: String) {
        if let value = StableID.value(id) {
            values.append(value)
        } else {
            others[values.count] = id
            values.append(Self.other)
        }
    }

    public mutating func reserveCapacity(_ count: Int) { values.reserveCapacity(count) }

    /// Appends the id whose number (`StableID`) is `value`, without its text.
    mutating func append(number value: UInt64) {
        precondition(value >> 48 == 0, "an id number has 48 bits")
        values.append(value)
    }

    /// The position of `id` (a photo page asks for its place in the album).
    public func firstIndex(of id: String) -> Int? {
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
