enum CodecCommands {
    static func decode(_ args: [String]) -> Int32 { 1 }
    static func probe(_ args: [String]) -> Int32 { 1 }
}
