enum ServeCommand {
    static func run(_ args: [String]) -> Int32 { 1 }
}
