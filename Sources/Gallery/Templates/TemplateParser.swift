/// A parse failure, with the template name and 1-based line.
public struct TemplateError: Error, CustomStringConvertible, Sendable {
    public var template: String
    public var line: Int
    public var message: String
    public var description: String { "\(template):\(line): \(message)" }
}

/// A parsed template: a tree of nodes, rendered many times.
indirect enum TemplateNode: Sendable, Equatable {
    case text(String)
    /// `{{a.b}}` (escaped) or `{{{a.b}}}` / `{{& a.b}}` (raw when the value is `.html`).
    case variable(path: [String], raw: Bool)
    /// `{{#a}}…{{/a}}` or, inverted, `{{^a}}…{{/a}}`.
    case section(path: [String], inverted: Bool, children: [TemplateNode])
    /// `{{> name}}`.
    case partial(String)
}

/// Parses a Mustache-style syntax: variables with dotted paths, sections over lists, objects
/// and booleans, inverted sections, partials and comments (`{{! … }}`).
enum TemplateParser {
    static func parse(_ source: String, name: String) throws(TemplateError) -> [TemplateNode] {
        var stack: [(path: [String], inverted: Bool, nodes: [TemplateNode], line: Int)] = [([], false, [], 1)]
        var rest = Substring(source)
        var line = 1
        func fail(_ message: String) -> TemplateError { TemplateError(template: name, line: line, message: message) }

        while !rest.isEmpty {
            guard let open = rest.range(of: "{{") else {
                stack[stack.count - 1].nodes.append(.text(String(rest)))
                break
            }
            let before = rest[..<open.lowerBound]
            if !before.isEmpty { stack[stack.count - 1].nodes.append(.text(String(before))) }
            line += before.filter { $0 == "\n" }.count
            var afterOpen = rest[open.upperBound...]
            let triple = afterOpen.hasPrefix("{")
            if triple { afterOpen = afterOpen.dropFirst() }
            let closer = triple ? "}}}" : "}}"
            guard let close = afterOpen.range(of: closer) else { throw fail("unclosed tag") }
            let inner = afterOpen[..<close.lowerBound]
            line += inner.filter { $0 == "\n" }.count
            rest = afterOpen[close.upperBound...]

            let sigil = inner.first
            let body = trim(sigil.map { "#^/>!&".contains($0) } == true ? inner.dropFirst() : inner)
            if triple {
                stack[stack.count - 1].nodes.append(.variable(path: try path(body, fail), raw: true))
                continue
            }
            switch sigil {
            case "!": continue
            case "#", "^":
                stack.append((try path(body, fail), sigil == "^", [], line))
            case "/":
                let closing = try path(body, fail)
                guard stack.count > 1 else { throw fail("{{/\(body)}} closes nothing") }
                let open = stack.removeLast()
                guard open.path == closing else {
                    throw fail("{{/\(body)}} does not match {{#\(open.path.joined(separator: "."))}} opened on line \(open.line)")
                }
                stack[stack.count - 1].nodes.append(.section(path: open.path, inverted: open.inverted, children: open.nodes))
            case ">":
                guard !body.isEmpty, body.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                    throw fail("bad partial name '\(body)'")
                }
                stack[stack.count - 1].nodes.append(.partial(String(body)))
            case "&":
                stack[stack.count - 1].nodes.append(.variable(path: try path(body, fail), raw: true))
            default:
                stack[stack.count - 1].nodes.append(.variable(path: try path(body, fail), raw: false))
            }
        }
        guard stack.count == 1 else {
            let open = stack[stack.count - 1]
            throw TemplateError(template: name, line: open.line, message: "{{#\(open.path.joined(separator: "."))}} is never closed")
        }
        return stack[0].nodes
    }

    private static func trim(_ s: Substring) -> Substring {
        var s = s
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return s
    }

    /// "." is the current value; otherwise dot-separated names of letters, digits and _.
    private static func path(_ text: Substring, _ fail: (String) -> TemplateError) throws(TemplateError) -> [String] {
        if text == "." { return [] }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
            throw fail("bad name '\(text)'")
        }
        return parts.map(String.init)
    }
}
