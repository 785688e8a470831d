import FastCGI
import Foundation

/// Builders for the responses the gallery sends, with the headers every page carries.
enum HTTPResponses {
    /// Headers on every HTML page: no sniffing, no framing, scripts and styles from us only
    /// (inline style attributes carry the placeholder colours).
    static let pageSecurityHeaders: [(name: String, value: String)] = [
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "same-origin"),
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; base-uri 'none'; frame-ancestors 'none'"),
    ]

    static func html(_ status: Int, _ body: String, extraHeaders: [(name: String, value: String)] = []) -> FastCGIResponse {
        FastCGIResponse(status: status,
                        headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache")]
                            + pageSecurityHeaders + extraHeaders,
                        body: Array(body.utf8))
    }

    static func text(_ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8",
                     extraHeaders: [(name: String, value: String)] = []) -> FastCGIResponse {
        FastCGIResponse(status: status,
                        headers: [("Content-Type", contentType), ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")] + extraHeaders,
                        body: Array(body.utf8))
    }

    static func redirect(to location: String, cacheControl: String = "no-cache") -> FastCGIResponse {
        FastCGIResponse(status: 302, headers: [("Location", location), ("Cache-Control", cacheControl),
                                               ("Content-Type", "text/html; charset=utf-8")],
                        body: Array("<!doctype html><title>Moved</title><a href=\"\(HTML.escape(location))\">Moved here</a>\n".utf8))
    }

    /// RFC 9110 IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), for Last-Modified. Formatted by
    /// hand: a DateFormatter per image request cost more than the rest of a cache hit.
    static func httpDate(_ secondsSince1970: Int) -> String {
        var t = time_t(secondsSince1970)
        var parts = tm()
        guard gmtime_r(&t, &parts) != nil else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let day = days[Int(parts.tm_wday) % 7], month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

/// The short HTML pages for errors, in the site's style (the `error` template inside the
/// layout), with a built-in fallback when the templates are missing.
struct ErrorPages: Sendable {
    let templates: TemplateLibrary?
    let chrome: @Sendable () -> [String: TemplateValue]

    func response(_ status: Int, message: String? = nil, extraHeaders: [(name: String, value: String)] = []) -> FastCGIResponse {
        let title = ErrorPages.title(for: status)
        let text = message ?? ErrorPages.explanation(for: status)
        var context = chrome()
        context["pageTitle"] = .string(title)
        context["error"] = ["status": .int(status), "title": .string(title), "message": .string(text)]
        let body: String
        if let templates, templates.has("error") {
            body = templates.renderPage("error", context: .object(context))
        } else {
            body = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>\(status) \(HTML.escape(title))</title>"
                + "<h1>\(status) \(HTML.escape(title))</h1><p>\(HTML.escape(text))</p><p><a href=\"/\">Back to the gallery</a></p></html>\n"
        }
        return HTTPResponses.html(status, body, extraHeaders: extraHeaders)
    }

    static func title(for status: Int) -> String {
        switch status {
        case 400: return "Bad request"
        case 404: return "Not found"
        case 405: return "Method not allowed"
        case 414: return "Address too long"
        case 415: return "Not an image"
        case 422: return "Image cannot be read"
        case 502: return "Image source failed"
        case 503: return "Busy"
        case 504: return "Image source timed out"
        default: return FastCGIResponse.reason(for: status)
        }
    }

    static func explanation(for status: Int) -> String {
        switch status {
        case 400: return "That size or request is not something this gallery serves."
        case 404: return "There is no album or photo at this address."
        case 405: return "This gallery only answers GET and HEAD requests."
        case 414: return "The address is longer than this gallery accepts."
        case 415: return "The file behind this photo is not an image this gallery reads (JPEG, PNG, HEIC or WebP)."
        case 422: return "The file behind this photo is damaged and cannot be decoded."
        case 502: return "The place this photo comes from did not answer properly."
        case 503: return "The gallery is busy right now. Please try again in a moment."
        case 504: return "The place this photo comes from took too long to answer."
        default: return "Something went wrong while answering this request."
        }
    }
}
