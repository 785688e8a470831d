enum ThumbnailBench {
    static func run(_ context: BenchContext) {}
}
