// Which links stay on the site being warmed, and the request target each one names. The
// warmer never leaves the origin (scheme, host and port) it was given: every other link,
// `https:` to the same host included, is dropped, so a page cannot send it anywhere else.

/// An `http://host[:port]` origin plus the path the crawl starts at.
public struct SiteURL: Sendable, Equatable {
    /// Lowercased host name or address, as given (an IPv6 literal keeps its brackets).
    public var host: String
    public var port: Int
    /// Request target of the start page: path and query, always starting with "/".
    public var start: String

    /// Parses `http://host[:port][/path][?query]`; nil for any other scheme, userinfo, an
    /// empty host or a bad port.
    public init?(_ text: String) {
        guard let (host, port, target) = SiteURL.split(absolute: text) else { return nil }
        self.host = host
        self.port = port
        self.start = target
    }

    /// The `Host` header value.
    public var hostHeader: String { port == 80 ? host : "\(host):\(port)" }

    /// `reference` (a link found on the page at `page`, a request target) as a request target
    /// on this origin, without its fragment and with dot segments removed; nil when it points
    /// at another origin or is not an http link at all (`mailto:`, `javascript:`, `data:`).
    public func resolve(_ reference: String, against page: String) -> String? {
        let ref = reference.trimmingSpaces()
        guard !ref.isEmpty else { return nil }
        let noFragment = ref.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if noFragment.isEmpty { return nil } // "#top": the same page
        if noFragment.hasPrefix("//") {
            return resolve("http:" + noFragment, against: page)
        }
        if let colon = noFragment.firstIndex(of: ":"), noFragment[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
           !noFragment[..<colon].isEmpty, noFragment[..<colon].first!.isLetter {
            guard let (host, port, target) = SiteURL.split(absolute: noFragment), host == self.host, port == self.port else { return nil }
            return SiteURL.normalise(target)
        }
        let (pagePath, _) = SiteURL.pathAndQuery(page)
        if noFragment.hasPrefix("/") { return SiteURL.normalise(noFragment) }
        if noFragment.hasPrefix("?") { return SiteURL.normalise(pagePath + noFragment) }
        let directory = pagePath.lastIndex(of: "/").map { String(pagePath[...$0]) } ?? "/"
        return SiteURL.normalise(directory + noFragment)
    }

    /// (host, port, target) of an absolute http URL.
    static func split(absolute text: String) -> (String, Int, String)? {
        guard text.count > 7, text.prefix(7).lowercased() == "http://" else { return nil }
        let rest = text.dropFirst(7)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = Substring(authority)
        var port = 80
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
            host = authority[..<colon]
        }
        guard !host.isEmpty else { return nil }
        var target = String(rest[authorityEnd...])
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        if !target.hasPrefix("/") { target = "/" + target }
        return (host.lowercased(), port, target)
    }

    static func pathAndQuery(_ target: String) -> (String, String?) {
        guard let q = target.firstIndex(of: "?") else { return (target, nil) }
        return (String(target[..<q]), String(target[target.index(after: q)...]))
    }

    /// Removes "." and ".." segments (never above the root) and escapes spaces and other
    /// bytes a request line cannot carry.
    static func normalise(_ target: String) -> String {
        let (path, query) = pathAndQuery(target)
        var segments: [Substring] = []
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (k, part) in parts.enumerated() {
            let last = k == parts.count - 1
            switch part {
            case ".": if last { segments.append("") }
            case "..":
                if !segments.isEmpty { segments.removeLast() }
                if last { segments.append("") }
            default: segments.append(part)
            }
        }
        let clean = "/" + segments.joined(separator: "/") + (query.map { "?" + $0 } ?? "")
        var out = ""
        for byte in clean.utf8 {
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") {
                out += Hex.percentEscape(byte)
            } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\r\n" || c == "\u{0C}" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\r\n" || c == "\u{0C}" { s = s.dropLast() }
        return String(s)
    }
}
