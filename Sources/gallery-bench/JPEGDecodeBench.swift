enum JPEGDecodeBench {
    static func run(_ context: BenchContext) {}
}
