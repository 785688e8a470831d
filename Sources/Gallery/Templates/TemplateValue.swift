/// Data a template renders. Plain strings are always HTML-escaped; only `.html` (text our
/// own code produced) may be emitted raw, and only through a triple-brace tag.
public indirect enum TemplateValue: Sendable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case list([TemplateValue])
    case object([String: TemplateValue])
    /// Trusted markup built by our code (for example a rendered page inside the layout).
    case html(String)
    case null

    /// Whether a section over this value renders (false, null, "", [] do not).
    var isTruthy: Bool {
        switch self {
        case .string(let s): return !s.isEmpty
        case .int: return true
        case .bool(let b): return b
        case .list(let l): return !l.isEmpty
        case .object: return true
        case .html(let s): return !s.isEmpty
        case .null: return false
        }
    }

    /// The text a variable tag prints (before escaping).
    var text: String {
        switch self {
        case .string(let s), .html(let s): return s
        case .int(let i): return String(i)
        case .bool(let b): return b ? "true" : ""
        case .list, .object, .null: return ""
        }
    }

    func member(_ name: String) -> TemplateValue? {
        guard case .object(let fields) = self else { return nil }
        return fields[name]
    }
}

extension TemplateValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
                         ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension TemplateValue {
    /// `.string(text)`, or `.null` when `text` is nil.
    public static func optional(_ text: String?) -> TemplateValue { text.map { .string($0) } ?? .null }
}

/// HTML escaping for text and attribute values.
public enum HTML {
    /// Escapes & < > " ' so the result is safe in element content and quoted attributes.
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
