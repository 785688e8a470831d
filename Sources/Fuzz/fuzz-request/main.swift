import Gallery

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

/// Feeds untrusted request text to what parses it before any lookup: the router (path and
/// query, raw as nginx passes REQUEST_URI), the query decoder, and the template engine (a
/// template author's mistakes must give an error, never a trap). Beyond "no crash" it checks
/// the router's promise: anything it routes carries a well-formed id and a path made only of
/// the bytes a valid URL uses, so no traversal text can reach a lookup.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let mode = data[0] % 3
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    switch mode {
    case 0:
        let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let query = parts.count > 1 ? String(parts[1]) : ""
        let route = Router.route(path: path, query: query)
        let routedID: String?
        switch route {
        case .album(let id, let page): routedID = id; precondition(page >= 1 && page <= Router.maxPage)
        case .index(let page): routedID = nil; precondition(page >= 1 && page <= Router.maxPage)
        case .photo(let id), .original(let id): routedID = id
        case .image(let id, let spec, _): routedID = id; precondition(!spec.isEmpty && spec.utf8.count <= 11)
        case .healthz, .metrics, .notFound: routedID = nil
        }
        if let id = routedID {
            precondition(StableID.isWellFormed(id), "routed a malformed id")
        }
        if route != .notFound {
            precondition(!path.contains("..") && !path.contains("%") && !path.contains("\\") && !path.contains("\u{0}"),
                         "routed a path with traversal bytes")
        }
    case 1:
        for (key, value) in QueryString.parse(text) {
            precondition(!key.isEmpty)
            _ = value.utf8.count
        }
    default:
        guard let library = try? TemplateLibrary(sources: ["page": text, "part": "<i>{{a}}</i>"]) else { return 0 }
        let hostile = "<script>alert(1)</script>\"'&"
        let context: TemplateValue = ["a": .string(hostile), "b": .list([.string(hostile), .bool(true)]),
                                      "c": .object(["d": .string(hostile)]), "e": .html("<b>trusted</b>")]
        let out = library.renderPage("page", context: context)
        precondition(!out.contains("<script>alert(1)</script>") || text.contains("<script>alert(1)</script>"),
                     "a value was emitted without escaping")
    }
    return 0
}
