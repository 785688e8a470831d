/// Renders parsed templates against a context stack. Names resolve from the innermost
/// context outwards (first path component), then through object members.
struct TemplateRenderer {
    /// Partials by name; `TemplateLibrary` has checked that they include no cycle.
    let partials: [String: [TemplateNode]]

    func render(_ nodes: [TemplateNode], context: TemplateValue) -> String {
        var out = ""
        var stack = [context]
        render(nodes, stack: &stack, into: &out)
        return out
    }

    private func render(_ nodes: [TemplateNode], stack: inout [TemplateValue], into out: inout String) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .variable(let path, let raw):
                let value = resolve(path, in: stack)
                if raw, case .html(let markup) = value {
                    out += markup
                } else {
                    out += HTML.escape(value.text)
                }
            case .section(let path, let inverted, let children):
                let value = resolve(path, in: stack)
                if inverted {
                    if !value.isTruthy { render(children, stack: &stack, into: &out) }
                    continue
                }
                guard value.isTruthy else { continue }
                switch value {
                case .list(let elements):
                    for element in elements {
                        stack.append(element)
                        render(children, stack: &stack, into: &out)
                        stack.removeLast()
                    }
                case .bool:
                    render(children, stack: &stack, into: &out)
                default:
                    stack.append(value)
                    render(children, stack: &stack, into: &out)
                    stack.removeLast()
                }
            case .partial(let name):
                if let nodes = partials[name] { render(nodes, stack: &stack, into: &out) }
            }
        }
    }

    private func resolve(_ path: [String], in stack: [TemplateValue]) -> TemplateValue {
        guard let first = path.first else { return stack.last ?? .null }
        var found: TemplateValue?
        for context in stack.reversed() {
            if let v = context.member(first) { found = v; break }
        }
        guard var value = found else { return .null }
        for name in path.dropFirst() {
            guard let next = value.member(name) else { return .null }
            value = next
        }
        return value
    }
}
