// swift-tools-version:6.0
import PackageDescription

/// The AVX2 kernel target's code generation: haswell on x86-64 hosts, the default elsewhere
/// (the dispatch never calls it there).
#if arch(x86_64)
let avx2Flags: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "haswell"])]
#else
let avx2Flags: [SwiftSetting] = []
#endif

/// Module graph (arrows point one way):
/// gallery -> Gallery -> ImagePipeline -> ImageCodec -> CZlib; Gallery -> FastCGI -> CFastCGI;
/// Gallery -> CSQLite (the library index); ImagePipeline -> CCrypto (SHA-256 of originals) and
/// CTLS (libssl: originals fetched over https);
/// Gallery -> CCrypto (HMAC-SHA-256 of share links, constant-time comparison).
/// ImageCodec uses only the standard library and zlib: it never sees Foundation or the web.
/// ImageCodec -> CCPUFeatures (cpuid), JPEGKernelsAVX2 and HEVCKernelsAVX2 (its own kernels built for AVX2).
let package = Package(
    name: "gallery",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gallery", targets: ["gallery"]),
        .executable(name: "gallery-bench", targets: ["gallery-bench"]),
        .executable(name: "fuzz-jpeg", targets: ["fuzz-jpeg"]),
        .executable(name: "fuzz-png", targets: ["fuzz-png"]),
        .executable(name: "fuzz-hevc", targets: ["fuzz-hevc"]),
        .executable(name: "fuzz-h264", targets: ["fuzz-h264"]),
        .executable(name: "fuzz-webp", targets: ["fuzz-webp"]),
        .executable(name: "fuzz-exif", targets: ["fuzz-exif"]),
        .executable(name: "fuzz-icc", targets: ["fuzz-icc"]),
        .executable(name: "fuzz-heic", targets: ["fuzz-heic"]),
        .executable(name: "fuzz-mp4", targets: ["fuzz-mp4"]),
        .executable(name: "fuzz-motion", targets: ["fuzz-motion"]),
        .executable(name: "fuzz-gif", targets: ["fuzz-gif"]),
        .executable(name: "fuzz-xmp", targets: ["fuzz-xmp"]),
        .executable(name: "fuzz-tiff", targets: ["fuzz-tiff"]),
        .executable(name: "fuzz-inflate", targets: ["fuzz-inflate"]),
        .executable(name: "fuzz-request", targets: ["fuzz-request"]),
        .executable(name: "fuzz-answer", targets: ["fuzz-answer"]),
    ],
    targets: [
        .systemLibrary(name: "CFastCGI", path: "Sources/CFastCGI", providers: [.apt(["libfcgi-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The library index (Gallery/Index) and content hashing (libcrypto's SHA-256 uses the CPU's SHA instructions).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CTLS", path: "Sources/CTLS", providers: [.apt(["libssl-dev"])]),
        // cpuid for the kernel dispatch (clang builtins in a header; no library).
        .systemLibrary(name: "CCPUFeatures", path: "Sources/CCPUFeatures"),
        // libm: Float rounding (HEIF colour conversion) calls roundf and friends.
        .target(name: "ImageCodec", dependencies: ["CZlib", "CCPUFeatures", "JPEGKernelsAVX2", "HEVCKernelsAVX2"],
                linkerSettings: [.linkedLibrary("m")]),
        // ImageCodec's hot kernels again (symlinked sources) compiled for AVX2/BMI2/FMA, called only
        // when the CPU has them (ImageCodec/SIMD/KernelDispatch.swift). swiftc takes "haswell" as
        // the CPU name (not "x86-64-v3").
        .target(name: "JPEGKernelsAVX2", swiftSettings: avx2Flags),
        // The HEVC/HEIC kernels the same way (HEVC/HEVCKernelDispatch.swift): a target of their
        // own, so each kernel set compiles beside the other.
        .target(name: "HEVCKernelsAVX2", swiftSettings: avx2Flags),
        .target(name: "ImagePipeline", dependencies: ["ImageCodec", "CCrypto", "CTLS"]),
        .target(name: "FastCGI", dependencies: ["CFastCGI"]),
        .target(name: "Gallery", dependencies: ["ImagePipeline", "FastCGI", "CSQLite", "CCrypto"]),
        .executableTarget(name: "gallery", dependencies: ["Gallery", "ImagePipeline", "ImageCodec", "FastCGI"]),
        .executableTarget(name: "gallery-bench", dependencies: ["Gallery", "FastCGI", "CSQLite", "ImagePipeline", "ImageCodec"]),
        .target(name: "ImageFuzzChecks", dependencies: ["ImageCodec", "CZlib"], path: "Sources/Fuzz/ImageFuzzChecks"),
        .executableTarget(name: "fuzz-jpeg", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-jpeg"),
        .executableTarget(name: "fuzz-png", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-png"),
        .executableTarget(name: "fuzz-hevc", dependencies: ["ImageCodec"], path: "Sources/Fuzz/fuzz-hevc"),
        .executableTarget(name: "fuzz-h264", dependencies: ["ImageCodec"], path: "Sources/Fuzz/fuzz-h264"),
        .executableTarget(name: "fuzz-webp", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-webp"),
        .executableTarget(name: "fuzz-exif", dependencies: ["ImageCodec"], path: "Sources/Fuzz/fuzz-exif"),
        .executableTarget(name: "fuzz-icc", dependencies: ["ImageCodec"], path: "Sources/Fuzz/fuzz-icc"),
        .executableTarget(name: "fuzz-heic", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-heic"),
        .executableTarget(name: "fuzz-mp4", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-mp4"),
        .executableTarget(name: "fuzz-motion", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-motion"),
        .executableTarget(name: "fuzz-gif", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-gif"),
        .executableTarget(name: "fuzz-xmp", dependencies: ["ImageCodec"], path: "Sources/Fuzz/fuzz-xmp"),
        .executableTarget(name: "fuzz-tiff", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-tiff"),
        .executableTarget(name: "fuzz-inflate", dependencies: ["ImageFuzzChecks"], path: "Sources/Fuzz/fuzz-inflate"),
        .executableTarget(name: "fuzz-request", dependencies: ["Gallery", "ImagePipeline"], path: "Sources/Fuzz/fuzz-request"),
        .executableTarget(name: "fuzz-answer", dependencies: ["ImagePipeline"], path: "Sources/Fuzz/fuzz-answer"),
        .testTarget(name: "ImageCodecTests", dependencies: ["ImageCodec", "ImageFuzzChecks"]),
        .testTarget(name: "ImagePipelineTests", dependencies: ["ImagePipeline", "ImageCodec", "CTLS"]),
        .testTarget(name: "GalleryTests", dependencies: ["Gallery", "ImagePipeline", "ImageCodec", "FastCGI"]),
    ],
    swiftLanguageModes: [.v6]
)
