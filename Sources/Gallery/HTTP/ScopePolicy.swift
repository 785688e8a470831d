import FastCGI

/// What a URL scope says about every response in it, decided in one place for pages, images,
/// originals, feeds and ZIPs alike.
///
/// Under `/s/<token>/` everything is for the link holder only: `Cache-Control: private` (so no
/// shared cache, CDN or proxy keeps it), with a short max-age for images and originals (a
/// browser that already holds one keeps it at most that long after a revocation: the server
/// cannot reach into it) and `no-store` for everything else; `Referrer-Policy: no-referrer`
/// (the token never leaves in a Referer) and `X-Robots-Tag` (a leaked link stays out of
/// search engines). nginx does not keep these answers in its cache either
/// (`gallery-locations.conf.in`), so a revoked link is 404 at once.
enum ScopePolicy {
    /// Seconds a browser may keep a shared image or original.
    static let sharedImageMaxAge = 300

    /// Rewrites the caching and referrer headers of `response` to a share link's policy.
    /// `route` is the route label (`img` and `original` are the cacheable ones).
    static func applyShared(to response: inout FastCGIResponse, route: String) {
        let replaced: Set<String> = ["cache-control", "referrer-policy", "x-robots-tag", "expires"]
        response.headers.removeAll { replaced.contains($0.name.lowercased()) }
        let cacheable = (route == "img" || route == "original") && (response.status == 200 || response.status == 304)
        response.headers.append(("Cache-Control", cacheable ? "private, max-age=\(sharedImageMaxAge)" : "private, no-store"))
        response.headers.append(("Referrer-Policy", "no-referrer"))
        response.headers.append(("X-Robots-Tag", "noindex, nofollow"))
    }
}
