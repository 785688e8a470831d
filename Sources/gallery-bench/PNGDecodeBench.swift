enum PNGDecodeBench {
    static func run(_ context: BenchContext) {}
}
