#if canImport(Glibc)
import Glibc
#endif

// Subcommands live in their own files; this file only dispatches, so that worker-thread code
// never sits in main-actor-isolated top-level code (see docs/toolchain.md, Swift 6 concurrency).
let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first ?? "serve"
let rest = Array(arguments.dropFirst())
let status: Int32
switch command {
case "serve": status = ServeCommand.run(rest)
case "decode": status = CodecCommands.decode(rest)
case "probe": status = CodecCommands.probe(rest)
case "thumb": status = PipelineCommands.thumb(rest)
case "warm": status = WarmCommand.run(rest)
case "index": status = IndexCommand.run(rest)
case "share": status = ShareCommand.run(rest)
case "help", "--help", "-h":
    print(usageText)
    status = 0
default:
    if command.hasPrefix("--") {
        status = ServeCommand.run(arguments)
    } else {
        printError("gallery: unknown command '\(command)'\n\(usageText)")
        status = 2
    }
}
exit(status)
