#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum ProcessorCount {
    /// Processors online now (sysconf), at least 1.
    static var online: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? n : 1
    }
}
