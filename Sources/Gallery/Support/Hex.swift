/// Hexadecimal digits for the web layer's text formats: percent escapes in URLs and headers,
/// and the placeholder previews the library index stores as text.
enum Hex {
    /// The value of one hex digit, either case; nil for any other byte.
    static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: return digit - 0x30
        case 0x41...0x46: return digit - 0x41 + 10
        case 0x61...0x66: return digit - 0x61 + 10
        default: return nil
        }
    }

    /// Lower-case digits, two per byte.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out = ""
        for b in bytes {
            out.unicodeScalars.append(digit(b >> 4, uppercase: false))
            out.unicodeScalars.append(digit(b & 0xF, uppercase: false))
        }
        return out
    }

    /// Bytes from pairs of digits; nil for an odd count, a non-digit or more than `maxBytes`.
    static func decode(_ text: Substring, maxBytes: Int) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, digits.count / 2 <= maxBytes else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let h = value(digits[i]), let l = value(digits[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }

    /// `%XY` for one byte, upper-case as RFC 3986 recommends.
    static func percentEscape(_ byte: UInt8) -> String {
        var out = "%"
        out.unicodeScalars.append(digit(byte >> 4, uppercase: true))
        out.unicodeScalars.append(digit(byte & 0xF, uppercase: true))
        return out
    }

    private static func digit(_ nibble: UInt8, uppercase: Bool) -> Unicode.Scalar {
        Unicode.Scalar(nibble < 10 ? 0x30 + nibble : (uppercase ? 0x41 : 0x61) + nibble - 10)
    }
}
