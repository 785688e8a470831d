import ImageFuzzChecks

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run.

/// `ImageFuzzChecks.motionProblems` on each input (finding the movie inside a motion photo,
/// then the movie's demux, probe and 1/8 poster decode); a broken invariant traps, which
/// libFuzzer records as a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var found = 0
    let problems = ImageFuzzChecks.motionProblems(Array(UnsafeBufferPointer(start: data, count: size)), found: &found)
    precondition(problems.isEmpty, problems.joined(separator: "; "))
    return 0
}
