/// Where the responder takes its connections from.
public enum FastCGIListenAddress: Sendable, Equatable {
    /// The socket the parent left on fd 0 (spawn-fcgi, systemd socket activation with StandardInput=socket).
    case inherited
    /// A Unix socket at this path (created, mode 0666 so the web server's user can connect).
    case unixSocket(String)
    /// A TCP socket, "127.0.0.1:9000" or ":9000".
    case tcp(String)
}

/// Immutable settings handed to the worker threads.
public struct FastCGIConfiguration: Sendable {
    public var address: FastCGIListenAddress
    /// Worker threads, each accepting and answering one request at a time. Default: 2 × cores.
    public var threads: Int
    /// Largest request body read; longer bodies get 413 without being read. Default 1 MiB.
    public var maxBodyBytes: Int
    /// Listen backlog for sockets we open ourselves. Default 256.
    public var backlog: Int
    /// After SIGTERM, requests in flight get this long (seconds) before the process exits anyway. Default 25.
    public var shutdownGraceSeconds: Int

    public init(address: FastCGIListenAddress = .inherited, threads: Int = FastCGIConfiguration.defaultThreads,
                maxBodyBytes: Int = 1 << 20, backlog: Int = 256, shutdownGraceSeconds: Int = 25) {
        self.address = address
        self.threads = max(1, threads)
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.backlog = max(1, backlog)
        self.shutdownGraceSeconds = max(1, shutdownGraceSeconds)
    }

    /// Twice the number of online processors, at least 2.
    public static var defaultThreads: Int {
        max(2, 2 * ProcessorCount.online)
    }
}
