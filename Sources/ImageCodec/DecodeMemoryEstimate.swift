/// The buffers one decode is about to allocate, part by part, worked out from the headers
/// before the first of them exists so that `DecodeLimits.maxMemoryBytes` can refuse the decode
/// instead of the allocator (or the kernel's OOM killer) doing it later.
///
/// Each decoder builds its estimate from the same sizes its allocations use. All arithmetic
/// is checked: a part or a total that would overflow `Int` is unknown (nil), and an unknown
/// total never fits any limit.
struct DecodeMemoryEstimate: CustomStringConvertible {
    /// What is decoded, for the message: "progressive JPEG 10000x10000 at 8/8".
    let subject: String
    private(set) var parts: [(name: String, bytes: Int?)] = []

    init(_ subject: String) {
        self.subject = subject
    }

    /// Adds a buffer of `factors` multiplied together.
    mutating func add(_ name: String, _ factors: Int...) {
        parts.append((name, Self.product(factors)))
    }

    /// Adds a buffer whose size the caller computed (nil: it overflowed).
    mutating func add(_ name: String, bytes: Int?) {
        parts.append((name, bytes))
    }

    /// Sum of every part; nil when a part or the sum overflows.
    var total: Int? { Self.sum(parts.map(\.bytes)) }

    /// "progressive JPEG 10000x10000 at 8/8 needs 939843456 bytes (coefficients 637500000
    /// + rows 2343456 + output 300000000)"
    var description: String {
        let amount = total.map { "\($0) bytes" } ?? "more bytes than an Int holds"
        let list = parts.map { "\($0.name) \($0.bytes.map(String.init) ?? "overflow")" }.joined(separator: " + ")
        return "\(subject) needs \(amount) (\(list))"
    }

    /// The product of `factors`, or nil when it overflows.
    static func product(_ factors: [Int]) -> Int? {
        var result = 1
        for f in factors {
            let (p, overflow) = result.multipliedReportingOverflow(by: f)
            if overflow { return nil }
            result = p
        }
        return result
    }

    /// The sum of `terms`, or nil when one is nil or the sum overflows.
    static func sum(_ terms: [Int?]) -> Int? {
        var result = 0
        for t in terms {
            guard let t else { return nil }
            let (s, overflow) = result.addingReportingOverflow(t)
            if overflow { return nil }
            result = s
        }
        return result
    }
}
