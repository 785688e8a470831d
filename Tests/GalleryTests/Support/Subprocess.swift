import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs tools with posix_spawn + waitpid. Foundation's Process can miss a child's exit when
/// two tests start processes at once (the child stays a zombie and waitUntilExit never
/// returns), so the fixtures use this instead.
enum Subprocess {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Starts `path` with `args`; stdout and stderr go to `outputFile` (or /dev/null). Returns the pid.
    static func spawn(_ path: String, _ args: [String], outputFile: String? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard rc == 0 else { throw Failure(description: "cannot start \(path): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Waits for `pid`; returns its exit status, or 128 + signal number when a signal ended it.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Runs to completion; throws with the output when the exit status is not 0.
    @discardableResult
    static func run(_ path: String, _ args: [String]) throws -> String {
        let output = NSTemporaryDirectory() + "subprocess-\(UUID().uuidString).out"
        defer { unlink(output) }
        let pid = try spawn(path, args, outputFile: output)
        let status = wait(pid)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(description: "\(path) \(args.prefix(4)) exited \(status): \(text)") }
        return text
    }
}
