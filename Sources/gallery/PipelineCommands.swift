import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ImageCodec
import ImagePipeline
import Synchronization

/// `gallery thumb`: one file, no caches (`gallery warm` lives in WarmCommand.swift).
enum PipelineCommands {
    /// gallery thumb IN OUT (--size 480 | --cover 240x240) [--quality 82]
    static func thumb(_ args: [String]) -> Int32 {
        var positional: [String] = []
        var mode: ResizeMode?
        var quality = 82
        var rest = args[...]
        while let a = rest.popFirst() {
            switch a {
            case "--size", "--cover":
                guard let text = rest.popFirst(), let spec = SizeSpec(parsing: text) else {
                    return usage("thumb: \(a) needs a size such as 480 or 240x240")
                }
                if a == "--size", case .fit = spec.mode { mode = spec.mode }
                else if a == "--cover", case .cover = spec.mode { mode = spec.mode }
                else { return usage("thumb: \(a) \(text) is the wrong kind of size") }
            case "--quality":
                guard let text = rest.popFirst(), let q = Int(text), (1...100).contains(q) else {
                    return usage("thumb: --quality needs 1...100")
                }
                quality = q
            default:
                if a.hasPrefix("--") { return usage("thumb: unknown option \(a)") }
                positional.append(a)
            }
        }
        guard positional.count == 2, let mode else { return usage("thumb: needs IN OUT and --size or --cover") }
        let (input, output) = (positional[0], positional[1])
        // Plain string and POSIX calls on this path: every Foundation feature touched costs
        // resident pages, and this command's memory is what the thumbnail benchmark measures.
        let name = output.split(separator: "/").last ?? ""
        let ext = name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } ?? "" : ""
        let format: ImageFormat? = ext == "jpg" || ext == "jpeg" ? .jpeg : ext == "png" ? .png : ext == "webp" ? .webp : nil
        do {
            // Positioned reads: a movie's poster reads its `moov` and one sample; stills are read whole.
            let t = try Renderer.render(source: try ImagePipeline.openFile(input), mode: mode,
                                        options: RenderOptions(jpegQuality: quality, format: format))
            guard writeFile(output, t.image.bytes) else {
                printError("gallery thumb: cannot write \(output): \(String(cString: strerror(errno)))")
                return 1
            }
            return 0
        } catch {
            printError("gallery thumb: \(input): \(error)")
            return error.kind == .sourceNotAllowed ? 1 : 65
        }
    }

    /// Writes `bytes` to `path` (created or truncated, mode 0644).
    static func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        var done = 0
        let ok = bytes.withUnsafeBytes { raw -> Bool in
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        return close(fd) == 0 && ok
    }

    private static func usage(_ message: String) -> Int32 {
        printError("gallery \(message)\n\(usageText)")
        return 2
    }
}
