import Foundation

// gallery-bench [--runs N] [--only a,b] [--photos N] PHOTO_DIR (PHOTO_DIR optional for --only search)
// Every section measures ours beside a reference tool in the same run and prints ratios.
// `gallery-bench decode-hevc|decode-h264|decode-still FILE` are the child processes the heic,
// video and stills sections time.
if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "decode-hevc" {
    exit(HEICBench.decodeCommand(CommandLine.arguments[2]))
}
if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "decode-h264" {
    exit(VideoBench.decodeCommand(CommandLine.arguments[2]))
}
if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "decode-still" {
    exit(StillsBench.decodeCommand(CommandLine.arguments[2]))
}
var runs = 5
var only: Set<String>? = nil
var libraryPhotos: Int? = nil
var positional: [String] = []
var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--runs": runs = Int(args.isEmpty ? "5" : args.removeFirst()) ?? 5
    case "--photos": libraryPhotos = max(1, Int(args.isEmpty ? "" : args.removeFirst()) ?? 100_000)
    case "--only": only = Set((args.isEmpty ? "" : args.removeFirst()).split(separator: ",").map(String.init))
    default: positional.append(a)
    }
}
// Every section but search reads the photo folder, which has no default.
guard let photoDir = positional.first ?? (only == ["search"] ? "" : nil) else {
    print("usage: gallery-bench [--runs N] [--only section,...] [--photos N] PHOTO_DIR\n"
          + "sections: " + benchSections.map(\.name).joined(separator: ", ") + " (search needs no PHOTO_DIR)")
    exit(2)
}
let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
let scratch = NSTemporaryDirectory() + "gallery-bench-\(getpid())"
try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
var context = BenchContext(photoDir: photoDir, runs: runs, galleryBinary: exe.appendingPathComponent("gallery").path, scratchDir: scratch)
if let libraryPhotos {
    context.libraryPhotos = libraryPhotos
    context.searchPhotos = libraryPhotos
}
print("gallery-bench: photos from \(photoDir), median of \(runs) runs, whole processes")
for section in benchSections where only?.contains(section.name) ?? true {
    section.run(context)
}
try? FileManager.default.removeItem(atPath: scratch)
