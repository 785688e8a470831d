/// One request as the web server handed it over: CGI-style parameters plus the body.
public struct FastCGIRequest: Sendable {
    /// Every parameter the web server sent (REQUEST_METHOD, REQUEST_URI, HTTP_*, ...).
    public var params: [String: String]
    /// The request body, at most the server's `maxBodyBytes`.
    public var body: [UInt8]

    public init(params: [String: String], body: [UInt8] = []) {
        self.params = params
        self.body = body
    }

    /// "GET", "HEAD", ... as sent (upper case by HTTP convention, not normalised here).
    public var method: String { params["REQUEST_METHOD"] ?? "GET" }

    /// The raw request target (path and query, still percent-encoded), from REQUEST_URI;
    /// falls back to SCRIPT_NAME + PATH_INFO + "?" + QUERY_STRING for plain CGI servers.
    public var requestURI: String {
        if let uri = params["REQUEST_URI"], !uri.isEmpty { return uri }
        let path = (params["SCRIPT_NAME"] ?? "") + (params["PATH_INFO"] ?? "")
        let query = params["QUERY_STRING"] ?? ""
        return query.isEmpty ? (path.isEmpty ? "/" : path) : (path.isEmpty ? "/" : path) + "?" + query
    }

    /// The path part of `requestURI`, still percent-encoded.
    public var path: String {
        let uri = requestURI
        if let q = uri.firstIndex(of: "?") { return String(uri[..<q]) }
        return uri
    }

    /// The query part of `requestURI` (without "?"), still percent-encoded; "" when absent.
    public var query: String {
        let uri = requestURI
        if let q = uri.firstIndex(of: "?") { return String(uri[uri.index(after: q)...]) }
        return params["QUERY_STRING"] ?? ""
    }

    /// A request header by its HTTP name, case-insensitive ("If-None-Match" reads HTTP_IF_NONE_MATCH).
    public func header(_ name: String) -> String? {
        var key = "HTTP_"
        for ch in name.utf8 {
            switch ch {
            case UInt8(ascii: "-"): key.append("_")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): key.append(Character(Unicode.Scalar(ch - 32)))
            default: key.append(Character(Unicode.Scalar(ch)))
            }
        }
        if let v = params[key] { return v }
        // CGI passes these two without the HTTP_ prefix.
        switch key {
        case "HTTP_CONTENT_TYPE": return params["CONTENT_TYPE"]
        case "HTTP_CONTENT_LENGTH": return params["CONTENT_LENGTH"]
        default: return nil
        }
    }

    /// All HTTP request headers (HTTP_* parameters) with their CGI names.
    public var headers: [String: String] { params.filter { $0.key.hasPrefix("HTTP_") } }
}

extension FastCGIRequest {
    /// Parameters from a NULL-terminated array of "NAME=value" strings: a CGI process's
    /// environment or libfcgi's `envp`.
    static func parameters(from environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String: String] {
        var params: [String: String] = [:]
        guard var cursor = environment else { return params }
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                params[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            cursor += 1
        }
        return params
    }
}
