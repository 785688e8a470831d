#if canImport(Glibc)
import Glibc
#endif

/// glibc's `malloc_trim(0)`: hands the free pages at the top and inside each arena back to the
/// kernel. A rescan of a large library builds a whole new catalog beside the old one (tens of
/// MB at 100,000 photos) and frees the old; without a trim the freed pages stay in the
/// process's RSS. Looked up by name (Swift's Glibc module leaves out <malloc.h>); a no-op where
/// there is no such function.
enum MemoryTrim {
    static func releaseFreedMemory() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
