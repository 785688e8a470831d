import ImageFuzzChecks

// libFuzzer entry point. This file must hold declarations only: top-level statements would make
// Swift emit its own `main` and the fuzzer would silently never run (STACK-NOTES).

/// Differential: our `Inflate` against zlib on the same stream and output size
/// (`InflateDifferential.check`: byte 0 picks raw/zlib and Adler checking, bytes 1-2 the
/// capacity). Any difference in outcome or bytes traps, which libFuzzer records as a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let problem = InflateDifferential.check(fuzzInput: UnsafeBufferPointer(start: data, count: size)) {
        preconditionFailure(problem)
    }
    return 0
}
