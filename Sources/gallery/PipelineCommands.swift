enum PipelineCommands {
    static func thumb(_ args: [String]) -> Int32 { 1 }
    static func warm(_ args: [String]) -> Int32 { 1 }
}
