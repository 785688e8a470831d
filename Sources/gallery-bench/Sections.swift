/// The benchmark sections, in the order they print. Each lives in its own file.
struct BenchSection: Sendable {
    var name: String
    var run: @Sendable (BenchContext) -> Void
}

let benchSections: [BenchSection] = [
    BenchSection(name: "jpeg", run: JPEGDecodeBench.run),
    BenchSection(name: "png", run: PNGDecodeBench.run),
    BenchSection(name: "webp", run: WebPDecodeBench.run),
    BenchSection(name: "encode", run: EncodeBench.run),
    BenchSection(name: "webp-encode", run: WebPEncodeBench.run),
    BenchSection(name: "webp-serve", run: WebPServeBench.run),
    BenchSection(name: "thumb", run: ThumbnailBench.run),
    BenchSection(name: "heic", run: HEICBench.run),
    BenchSection(name: "video", run: VideoBench.run),
    BenchSection(name: "stills", run: StillsBench.run),
    BenchSection(name: "colour", run: ColourBench.run),
    BenchSection(name: "web", run: WebBench.run),
    BenchSection(name: "warm", run: WarmBench.run),
    BenchSection(name: "library", run: LibraryBench.run),
    BenchSection(name: "search", run: SearchBench.run),
]
