import ImageFuzzChecks

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

/// `ImageFuzzChecks.stillProblems` on each input (probe, memory estimate, 1/8 and full decodes
/// through the ByteSource entry points under tight limits); a broken invariant traps, which
/// libFuzzer records as a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var decoded = 0
    let problems = ImageFuzzChecks.stillProblems(Array(UnsafeBufferPointer(start: data, count: size)), decoded: &decoded)
    precondition(problems.isEmpty, problems.joined(separator: "; "))
    return 0
}
