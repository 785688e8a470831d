#if canImport(Glibc)
import Glibc
#endif

/// Starts a pthread running a Swift closure. The closure travels through an `Unmanaged`
/// context because a capturing pthread_create closure crashes the 6.3.1 compiler in Swift 6 mode.
enum ThreadLauncher {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// The new thread, or nil when it could not be created.
    static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            box.body()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(context).release()
            return nil
        }
        return thread
    }
}
