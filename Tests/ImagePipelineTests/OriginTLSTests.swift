import Foundation
import Testing
@testable import ImagePipeline

/// Our own HTTP/1.1 client for originals (`OriginFetcher` over `OriginConnection`): https with
/// the certificate and host name checked, and the framing an origin may send (chunked bodies,
/// interim answers, bodies up to the close) as well as framing it must not get away with.
@Suite(.serialized) struct OriginTLSTests {
    let jpeg: [UInt8]

    init() throws {
        jpeg = try fixtureBytes("jpeg/generated/orient_1.jpg")
    }

    func fetcher(_ trust: TLSTrust, maxBytes: Int = 1 << 20) -> OriginFetcher {
        OriginFetcher(connectTimeout: 1, totalTimeout: 3, maxBytes: maxBytes, maxRedirects: 5, trust: trust)
    }

    var testCA: TLSTrust { TLSTrust(caFile: fixturesDir + "/tls/ca.pem") }

    func failure(_ body: () throws -> Void) -> PipelineError? {
        do { try body() } catch { return error as? PipelineError }
        return nil
    }

    @Test func httpsWithATrustedCertificateFetches() throws {
        let origin = try TestTLSOrigin(certificate: "local", body: jpeg)
        #expect(try fetcher(testCA).fetch(origin.url()).bytes == jpeg)
        // By name as well: SNI and the DNS name of the certificate (localhost may resolve to ::1
        // first, where nothing listens: the next address is tried).
        #expect(try fetcher(testCA).fetch(origin.url("localhost")).bytes == jpeg)
    }

    @Test func httpsSignedByAnUnknownCAIsRefused() throws {
        let origin = try TestTLSOrigin(certificate: "local", body: jpeg)
        let error = failure { _ = try fetcher(.system).fetch(origin.url()) }
        #expect(error?.kind == .originFailed)
        #expect("\(String(describing: error))".contains("certificate"))
    }

    @Test func httpsForAnotherHostNameIsRefused() throws {
        let origin = try TestTLSOrigin(certificate: "other", body: jpeg)
        let error = failure { _ = try fetcher(testCA).fetch(origin.url()) }
        #expect(error?.kind == .originFailed)
    }

    @Test func framingAnOriginMaySend() throws {
        let origin = try TestOrigin()
        var chunked = Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        chunked += Array("10;ext=1\r\n".utf8)
        chunked += jpeg.prefix(16)
        chunked += Array("\r\n\(String(jpeg.count - 16, radix: 16))\r\n".utf8)
        chunked += jpeg.dropFirst(16)
        chunked += Array("\r\n0\r\nX-Trailer: yes\r\n\r\n".utf8)
        origin.set("/chunked.jpg", .raw(chunked))
        origin.set("/untilclose.jpg", .raw(Array("HTTP/1.0 200 OK\r\nContent-Type: image/jpeg\r\n\r\n".utf8) + jpeg))
        let f = fetcher(.system)
        #expect(try f.fetch(URL(string: origin.url("/chunked.jpg"))!).bytes == jpeg)
        #expect(try f.fetch(URL(string: origin.url("/untilclose.jpg"))!).bytes == jpeg)
    }

    @Test func framingThatIsRefused() throws {
        let origin = try TestOrigin()
        let ok = "HTTP/1.1 200 OK\r\n"
        origin.set("/badsize", .raw(Array("\(ok)Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n".utf8)))
        origin.set("/hugechunk", .raw(Array("\(ok)Transfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n".utf8) + jpeg))
        origin.set("/cutchunk", .raw(Array("\(ok)Transfer-Encoding: chunked\r\n\r\n400\r\n".utf8) + jpeg.prefix(100)))
        origin.set("/longhead", .raw(Array("\(ok)X-Long: \(String(repeating: "a", count: 70_000))\r\n\r\n".utf8)))
        origin.set("/notHTTP", .raw(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)))
        origin.set("/badlength", .raw(Array("\(ok)Content-Length: -5\r\n\r\n".utf8)))
        origin.set("/bigclose", .raw(Array("\(ok)\r\n".utf8) + [UInt8](repeating: 0xFF, count: 5000)))
        let f = fetcher(.system, maxBytes: 4096)
        for path in ["/badsize", "/hugechunk", "/cutchunk", "/longhead", "/notHTTP", "/badlength", "/bigclose"] {
            let error = failure { _ = try f.fetch(URL(string: origin.url(path))!) }
            #expect(error?.kind == .originFailed, "\(path): \(String(describing: error))")
        }
    }
}
