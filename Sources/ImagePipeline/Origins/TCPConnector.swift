#if canImport(Glibc)
import Glibc
#endif

/// When a transfer must give up: at `end` whatever happens (the total timeout), and when
/// nothing moved for `idle` seconds (the connect timeout doubles as the idle timeout, as it did
/// with URLSession: it covers a connect that never completes and an origin that stops sending).
struct TransferDeadline {
    let end: UInt64
    let idleMilliseconds: Int32

    init(total: Double, idle: Double) {
        // At most 10⁹ s (31 years): a larger total would not fit the nanosecond count.
        end = TransferDeadline.now() &+ UInt64(min(max(0, total), 1e9) * 1e9)
        idleMilliseconds = Int32(min(max(idle, 0.001), 86_400) * 1000)
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Waits until `fd` is ready for `events`; throws when the idle or total time ran out.
    func wait(_ fd: Int32, for events: Int16, doing what: String) throws(HTTPTransferError) {
        while true {
            let now = TransferDeadline.now()
            guard now < end else { throw .timedOut("no complete answer within the total timeout (\(what))") }
            let left = Int32(clamping: (end - now) / 1_000_000 + 1)
            let timeout = min(left, idleMilliseconds)
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&pfd, 1, timeout)
            if ready > 0 { return }
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw .failed("poll: \(String(cString: strerror(errno)))") }
            if timeout == idleMilliseconds && TransferDeadline.now() < end {
                throw .timedOut("nothing for \(idleMilliseconds) ms (\(what))")
            }
        }
    }
}

/// Opens TCP connections for both of our HTTP clients (originals from an origin, the warmer's
/// pages): each address `getaddrinfo` gives in turn, non-blocking so that a connect that never
/// completes gives up at the deadline, with Nagle off (a request goes out in one write and
/// waits for its answer).
public enum TCPConnector {
    /// A connected socket, still non-blocking, or why none could be made before `deadline`.
    /// `host` may be an IPv6 literal in brackets, as URLs write it.
    static func connect(host: String, port: Int, deadline: TransferDeadline) throws(HTTPTransferError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let status = getaddrinfo(name, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .failed("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let a = entry {
            entry = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else {
                lastError = String(cString: strerror(errno))
                Glibc.close(fd)
                continue
            }
            do {
                try deadline.wait(fd, for: Int16(POLLOUT), doing: "connecting to \(host)")
            } catch {
                Glibc.close(fd)
                throw error
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError == 0 { return fd }
            lastError = String(cString: strerror(soError))
            Glibc.close(fd)
        }
        throw .failed("cannot connect to \(host):\(port): \(lastError)")
    }

    /// A connected blocking socket whose connect, sends and receives each give up after
    /// `timeoutSeconds` (a receive that times out fails with EAGAIN), or why none could be made.
    public static func connectBlocking(host: String, port: Int, timeoutSeconds: Int) throws(HTTPTransferError) -> Int32 {
        let seconds = Double(max(timeoutSeconds, 1))
        let fd = try connect(host: host, port: port, deadline: TransferDeadline(total: seconds, idle: seconds))
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .failed("cannot make the socket to \(host) blocking: \(why)")
        }
        var tv = timeval(tv_sec: max(timeoutSeconds, 1), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }
}
