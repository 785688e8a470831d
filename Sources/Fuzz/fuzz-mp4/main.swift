import ImageFuzzChecks

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

/// `ImageFuzzChecks.videoProblems` on each input (the MP4/QuickTime demuxer, probe, memory
/// estimate and 1/8 poster decode through a `MemoryByteSource`); a broken invariant traps,
/// which libFuzzer records as a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var decoded = 0
    let problems = ImageFuzzChecks.videoProblems(Array(UnsafeBufferPointer(start: data, count: size)), decoded: &decoded)
    precondition(problems.isEmpty, problems.joined(separator: "; "))
    return 0
}
