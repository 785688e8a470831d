import CFastCGI
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A FastCGI responder: N worker threads, each looping on FCGX_Accept_r with its own
/// FCGX_Request. SIGTERM (or SIGINT) stops accepting, lets requests in flight finish and
/// makes `run` return 0. Started as a plain CGI program (no socket on fd 0 and no address
/// given) it answers the one request in its environment instead.
public final class FastCGIServer: Sendable {
    public let configuration: FastCGIConfiguration
    private let handler: any FastCGIHandler
    /// Set once shutdown begins; workers stop taking new requests.
    let stopping = Atomic<Bool>(false)
    /// Requests being answered right now (for logs and tests).
    let inFlight = Atomic<Int>(0)
    private let listenFD = Atomic<Int32>(-1)
    private let log: @Sendable (String) -> Void

    /// `log` receives one line per notable event (start, stop, socket errors); default stderr.
    public init(configuration: FastCGIConfiguration, handler: any FastCGIHandler,
                log: @escaping @Sendable (String) -> Void = { FastCGIServer.standardErrorLine($0) }) {
        self.configuration = configuration
        self.handler = handler
        self.log = log
    }

    /// Serves until SIGTERM/SIGINT; returns the process exit status (0 after a clean stop).
    public func run() -> Int32 {
        if configuration.address == .inherited && FCGX_IsCGI() != 0 {
            if getenv("GATEWAY_INTERFACE") == nil {
                log("fastcgi: no socket given (--socket/--listen) and none on fd 0: answering one CGI request")
            }
            return CGIResponder(handler: handler, maxBodyBytes: configuration.maxBodyBytes).respond()
        }
        guard FCGX_Init() == 0 else {
            log("fastcgi: FCGX_Init failed")
            return 1
        }
        // FCGX_Init installed handlers that only stop after the next request; block the stop
        // signals in every thread (workers inherit the mask) and take them with sigwait instead.
        FastCGIServer.blockStopSignals()
        signal(SIGPIPE, SIG_IGN)

        let fd: Int32
        switch configuration.address {
        case .inherited: fd = 0
        case .unixSocket(let path):
            unlink(path)
            fd = FCGX_OpenSocket(path, Int32(configuration.backlog))
            if fd >= 0 { chmod(path, 0o666) }
        case .tcp(let address):
            fd = FCGX_OpenSocket(address, Int32(configuration.backlog))
        }
        guard fd >= 0 else {
            log("fastcgi: cannot open listen socket \(configuration.address)")
            return 1
        }
        listenFD.store(fd, ordering: .sequentiallyConsistent)

        let signalThread = ThreadLauncher.start { [self] in self.waitForStopSignal() }
        var workers: [pthread_t] = []
        for index in 0..<configuration.threads {
            guard let t = ThreadLauncher.start({ [self] in self.workerLoop(index: index, listenFD: fd) }) else {
                log("fastcgi: cannot start worker thread \(index)")
                beginShutdown()
                break
            }
            workers.append(t)
        }
        log("fastcgi: serving with \(workers.count) threads on \(configuration.address)")
        for t in workers { pthread_join(t, nil) }
        if case .unixSocket(let path) = configuration.address { unlink(path) }
        if !stopping.load(ordering: .sequentiallyConsistent) {
            log("fastcgi: all workers ended without a stop signal")
            return 1
        }
        _ = signalThread
        log("fastcgi: stopped cleanly")
        return 0
    }

    /// Stops accepting: later FCGX_Accept_r calls fail and workers blocked in accept() wake up.
    public func beginShutdown() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        FCGX_ShutdownPending()
        let fd = listenFD.load(ordering: .sequentiallyConsistent)
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts later, so
    /// that only the server's sigwait thread receives them. Call it first thing in `main`,
    /// before anything (Foundation, Dispatch, a watcher) starts a thread: a thread with the
    /// signals unblocked would swallow them in libfcgi's handler and the server would never stop.
    public static func blockStopSignals() {
        var set = stopSignalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private static func stopSignalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }

    private func waitForStopSignal() {
        var set = FastCGIServer.stopSignalSet()
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        log("fastcgi: signal \(received), finishing \(inFlight.load(ordering: .relaxed)) request(s) in flight")
        beginShutdown()
        // Requests that hang (a stuck origin) must not keep the process alive forever.
        sleep(UInt32(configuration.shutdownGraceSeconds))
        log("fastcgi: grace period over with \(inFlight.load(ordering: .relaxed)) request(s) still running; exiting")
        exit(0)
    }

    private func workerLoop(index: Int, listenFD: Int32) {
        let request = UnsafeMutablePointer<FCGX_Request>.allocate(capacity: 1)
        defer { request.deallocate() }
        guard FCGX_InitRequest(request, listenFD, 0) == 0 else {
            log("fastcgi: worker \(index): FCGX_InitRequest failed")
            return
        }
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let rc = FCGX_Accept_r(request)
            if rc < 0 {
                if stopping.load(ordering: .sequentiallyConsistent) { break }
                log("fastcgi: worker \(index): accept failed (\(rc)); stopping this worker")
                beginShutdown()
                break
            }
            inFlight.add(1, ordering: .relaxed)
            let exchange = FastCGIExchange(request: request, maxBodyBytes: configuration.maxBodyBytes)
            exchange.serve(with: handler)
            FCGX_Finish_r(request)
            inFlight.subtract(1, ordering: .relaxed)
        }
        FCGX_Free(request, 1)
    }

    /// Writes one line to stderr with a plain write(2).
    public static func standardErrorLine(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(2, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }
}
