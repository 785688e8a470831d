enum EncodeBench {
    static func run(_ context: BenchContext) {}
}
