/// Natural order of two ASCII names compared in place, token by token, as `NaturalKey` orders
/// them, without making a key: a catalog build sorts every folder's names, and a key is two
/// arrays on the heap per name (a million of each at a million photos). Names from the index
/// come in byte order, which for camera names (`IMG_0001.JPG`, `DSC01234`) is natural order
/// already, so `CatalogNaming.sortedByName` first checks that with this and makes keys only
/// when the check fails.
enum NaturalOrder {
    /// Whether `a` comes before `b` (`NaturalKey(a).precedes(NaturalKey(b))`); nil when
    /// either name is not ASCII (the caller makes keys then).
    static func precedes(_ a: String, _ b: String) -> Bool? {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y -> Bool? in
                guard x.allSatisfy({ $0 < 0x80 }), y.allSatisfy({ $0 < 0x80 }) else { return nil }
                var p = Tokens(x), q = Tokens(y)
                while true {
                    switch (p.next(), q.next()) {
                    case (nil, nil): return x.lexicographicallyPrecedes(y)
                    case (nil, _): return true
                    case (_, nil): return false
                    case let (s?, t?): if s != t { return s < t }
                    }
                }
            }
        }
    }

    /// `NaturalKey`'s tokens of an ASCII name, one at a time: a lower-cased byte << 32; a run
    /// of digits as ('0' << 32 | its length without leading zeros), then those digits.
    private struct Tokens {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        /// The end of the run of digits being given out (`position` is inside it).
        var runEnd = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

        mutating func next() -> UInt64? {
            if position < runEnd {
                position += 1
                return UInt64(bytes[position - 1])
            }
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            guard Self.isDigit(byte) else {
                position += 1
                return UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) << 32
            }
            var end = position
            while end < bytes.count && Self.isDigit(bytes[end]) { end += 1 }
            while position < end && bytes[position] == 0x30 { position += 1 }
            runEnd = end
            return 0x30 << 32 | UInt64(end - position)
        }
    }
}
