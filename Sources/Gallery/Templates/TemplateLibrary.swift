import Foundation

/// Every `*.html` template of a folder, parsed once at start. Any template can be used as a
/// partial by its name without ".html". Pages render inside `layout.html`, which receives the
/// page's context plus `content` (the rendered page, trusted markup).
public struct TemplateLibrary: Sendable {
    private let templates: [String: [TemplateNode]]

    /// Loads and parses `directory/*.html`; throws on the first syntax error, missing partial or
    /// partial cycle.
    public init(directory: String) throws {
        var sources: [String: String] = [:]
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        for file in names where file.hasSuffix(".html") && !file.hasPrefix(".") {
            let path = directory + "/" + file
            guard let data = FileManager.default.contents(atPath: path) else {
                throw TemplateError(template: file, line: 0, message: "cannot read \(path)")
            }
            sources[String(file.dropLast(5))] = String(decoding: data, as: UTF8.self)
        }
        try self.init(sources: sources)
    }

    /// Parses templates given as name → source (names without ".html").
    public init(sources: [String: String]) throws {
        var parsed: [String: [TemplateNode]] = [:]
        for (name, source) in sources {
            parsed[name] = try TemplateParser.parse(source, name: name + ".html")
        }
        for (name, nodes) in parsed {
            for partial in TemplateLibrary.partialNames(in: nodes) where parsed[partial] == nil {
                throw TemplateError(template: name + ".html", line: 0, message: "partial '\(partial)' does not exist")
            }
        }
        try TemplateLibrary.rejectCycles(parsed)
        templates = parsed
    }

    /// A partial that includes itself, directly or through others, would render without end
    /// (twice per level doubles the work each level), so such a set is refused at load time.
    private static func rejectCycles(_ parsed: [String: [TemplateNode]]) throws {
        var done = Set<String>()
        func visit(_ name: String, path: [String]) throws {
            if done.contains(name) { return }
            if path.contains(name) {
                throw TemplateError(template: name + ".html", line: 0,
                                    message: "partial cycle: " + (path + [name]).joined(separator: " > "))
            }
            for partial in partialNames(in: parsed[name] ?? []) { try visit(partial, path: path + [name]) }
            done.insert(name)
        }
        for name in parsed.keys.sorted() { try visit(name, path: []) }
    }

    /// Whether a template with this name (without ".html") was loaded.
    public func has(_ name: String) -> Bool { templates[name] != nil }

    /// Renders template `name` alone; "" when it does not exist.
    public func render(_ name: String, context: TemplateValue) -> String {
        guard let nodes = templates[name] else { return "" }
        return TemplateRenderer(partials: templates).render(nodes, context: context)
    }

    /// Renders template `name`, then `layout` around it (when a layout exists).
    public func renderPage(_ name: String, context: TemplateValue) -> String {
        let content = render(name, context: context)
        guard templates["layout"] != nil else { return content }
        var fields: [String: TemplateValue] = [:]
        if case .object(let f) = context { fields = f }
        fields["content"] = .html(content)
        return render("layout", context: .object(fields))
    }

    private static func partialNames(in nodes: [TemplateNode]) -> [String] {
        var names: [String] = []
        for node in nodes {
            switch node {
            case .partial(let name): names.append(name)
            case .section(_, _, let children): names += partialNames(in: children)
            default: break
            }
        }
        return names
    }
}
