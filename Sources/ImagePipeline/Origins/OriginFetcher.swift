import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageCodec
import Synchronization

/// Original bytes as an origin sent them, already checked to be a JPEG or PNG.
struct FetchedOriginal: Sendable {
    var bytes: [UInt8]
    var format: ImageFormat
    /// Validators the origin sent, kept in the disk-cache metadata.
    var etag: String?
    var lastModified: String?
}

/// What an origin said to a conditional GET.
enum RevalidationAnswer: Sendable {
    /// 304: the cached bytes are current. The validators, when the 304 carried new ones.
    case notModified(etag: String?, lastModified: String?)
    /// 2xx with a body that passed the same checks as a first fetch.
    case fetched(FetchedOriginal)
}

/// Fetches originals over http(s) with URLSession, blocking the calling worker thread (the
/// FastCGI workers are plain threads) until the transfer ends or the total timeout passes.
///
/// Rules: status 2xx only (and 304 to a conditional request), at most `maxRedirects` redirects
/// and only to http(s), at most `maxBytes` received (the transfer is cancelled as soon as it
/// goes past), the body must be the whole Content-Length, and it must start like a JPEG or PNG.
/// Every failure is a typed error; nothing here writes to any cache.
final class OriginFetcher: Sendable {
    private let session: URLSession
    private let delegate: TransferDelegate
    private let connectTimeout: Double
    private let totalTimeout: Double

    init(connectTimeout: Double, totalTimeout: Double, maxBytes: Int, maxRedirects: Int) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        let config = URLSessionConfiguration.ephemeral
        // URLSession has no separate connect timeout: the request timeout is an idle timeout,
        // which covers a connect that never completes and an origin that stops sending.
        config.timeoutIntervalForRequest = connectTimeout
        config.timeoutIntervalForResource = totalTimeout
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpShouldSetCookies = false
        delegate = TransferDelegate(maxBytes: maxBytes, maxRedirects: maxRedirects)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: config, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// GETs `url` (http or https) and validates the answer.
    func fetch(_ url: URL) throws(PipelineError) -> FetchedOriginal {
        switch try transfer(url, etag: nil, lastModified: nil) {
        case .fetched(let original): return original
        case .notModified: throw .originFailed("\(url.absoluteString): status 304 to an unconditional request")
        }
    }

    /// GETs `url` on the condition that it changed: `If-None-Match` with `etag` when there is
    /// one, else `If-Modified-Since` with `lastModified` (sending both would let an origin with
    /// a coarse date answer 304 for a changed ETag); with neither, a plain GET. A 304 is only
    /// accepted in answer to a condition. Everything else is checked as in `fetch`.
    func revalidate(_ url: URL, etag: String?, lastModified: String?) throws(PipelineError) -> RevalidationAnswer {
        try transfer(url, etag: etag, lastModified: etag == nil ? lastModified : nil)
    }

    private func transfer(_ url: URL, etag: String?, lastModified: String?) throws(PipelineError) -> RevalidationAnswer {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .sourceNotAllowed("scheme of \(url.absoluteString) is not http(s)")
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: connectTimeout)
        request.setValue("image/jpeg, image/png;q=0.9, */*;q=0.1", forHTTPHeaderField: "Accept")
        request.setValue("gallery-image-pipeline/1", forHTTPHeaderField: "User-Agent")
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        let task = session.dataTask(with: request)
        let transfer = delegate.register(task, conditional: etag != nil || lastModified != nil)
        task.resume()
        if transfer.done.wait(timeout: .now() + totalTimeout) == .timedOut {
            task.cancel()
            _ = transfer.done.wait(timeout: .now() + 5)
            delegate.unregister(task)
            throw .originTimedOut("\(url.absoluteString): no complete answer within \(totalTimeout) s")
        }
        delegate.unregister(task)
        return try transfer.validated(url: url)
    }
}

/// One transfer's state. Written only on the session's serial delegate queue until `done` is
/// signalled, and read only after that, so the semaphore orders every access.
private final class Transfer: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    /// The request carried If-None-Match or If-Modified-Since, so 304 is an answer.
    let conditional: Bool
    var data: [UInt8] = []
    var response: HTTPURLResponse?
    var error: Error?
    var tooLarge = false
    var redirects = 0
    var refusedRedirect: String?
    var statusRejected = false
    var notModified = false

    init(conditional: Bool) {
        self.conditional = conditional
    }

    func validated(url: URL) throws(PipelineError) -> RevalidationAnswer {
        let source = url.absoluteString
        if notModified, let response {
            return .notModified(etag: response.value(forHTTPHeaderField: "ETag"),
                                lastModified: response.value(forHTTPHeaderField: "Last-Modified"))
        }
        if tooLarge { throw .originFailed("\(source): larger than the origin byte limit") }
        if let refused = refusedRedirect { throw .originFailed("\(source): \(refused)") }
        if let response, !(200...299).contains(response.statusCode) {
            throw .originFailed("\(source): status \(response.statusCode)")
        }
        if let error {
            if let e = error as? URLError, e.code == .timedOut {
                throw .originTimedOut("\(source): \(e.localizedDescription)")
            }
            throw .originFailed("\(source): \(error.localizedDescription)")
        }
        guard let response else { throw .originFailed("\(source): no response") }
        let expected = response.expectedContentLength
        if expected >= 0, Int64(data.count) != expected {
            throw .originFailed("\(source): body has \(data.count) of \(expected) bytes")
        }
        guard let format = ImageFormat.sniff(data) else {
            let type = response.value(forHTTPHeaderField: "Content-Type") ?? "no content type"
            throw .notAnImage("\(source): \(type), not an image format we read")
        }
        return .fetched(FetchedOriginal(bytes: data, format: format,
                                        etag: response.value(forHTTPHeaderField: "ETag"),
                                        lastModified: response.value(forHTTPHeaderField: "Last-Modified")))
    }
}

/// The session delegate: routes callbacks to each task's `Transfer` and enforces the limits
/// while bytes arrive, so an oversized answer is cut off instead of buffered.
private final class TransferDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let maxBytes: Int
    private let maxRedirects: Int
    private let transfers = Mutex<[Int: Transfer]>([:])

    init(maxBytes: Int, maxRedirects: Int) {
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
    }

    func register(_ task: URLSessionTask, conditional: Bool) -> Transfer {
        let t = Transfer(conditional: conditional)
        transfers.withLock { $0[task.taskIdentifier] = t }
        return t
    }

    func unregister(_ task: URLSessionTask) {
        transfers.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func transfer(_ task: URLSessionTask) -> Transfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let t = transfer(dataTask) else { return completionHandler(.cancel) }
        let http = response as? HTTPURLResponse
        t.response = http
        if let http, http.statusCode == 304, t.conditional {
            // Not modified: there is no body to wait for.
            t.notModified = true
            return completionHandler(.cancel)
        }
        guard let http, (200...299).contains(http.statusCode) else {
            // The error body is of no use: stop reading it.
            t.statusRejected = true
            return completionHandler(.cancel)
        }
        let expected = http.expectedContentLength
        if expected > Int64(maxBytes) {
            t.tooLarge = true
            return completionHandler(.cancel)
        }
        if expected > 0 { t.data.reserveCapacity(Int(expected)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let t = transfer(dataTask), !t.tooLarge else { return }
        if t.data.count + data.count > maxBytes {
            t.tooLarge = true
            t.data = []
            dataTask.cancel()
            return
        }
        data.withUnsafeBytes { t.data.append(contentsOf: $0.bindMemory(to: UInt8.self)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        guard let t = transfer(task) else { return completionHandler(nil) }
        t.redirects += 1
        let scheme = request.url?.scheme?.lowercased()
        if t.redirects > maxRedirects {
            t.refusedRedirect = "more than \(maxRedirects) redirects"
            completionHandler(nil)
        } else if scheme != "http" && scheme != "https" {
            t.refusedRedirect = "redirect to a non-http(s) URL"
            completionHandler(nil)
        } else {
            completionHandler(request)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let t = transfer(task) else { return }
        t.error = error
        t.done.signal()
    }
}
