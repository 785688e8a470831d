enum WebBench {
    static func run(_ context: BenchContext) {}
}
