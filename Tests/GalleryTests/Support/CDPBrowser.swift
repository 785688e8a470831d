import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
/// the browser reads commands on fd 3 and writes replies and events on fd 4, each message JSON
/// followed by a NUL byte). No WebDriver, no outside package: one page, commands answered in
/// order, events skipped. Waits are conditions polled in the page, never fixed sleeps.
final class CDPBrowser {
    struct Failure: Error, CustomStringConvertible { var description: String }

    private(set) var pid: pid_t = 0
    private var toBrowser: Int32 = -1
    private var fromBrowser: Int32 = -1
    private var buffer: [UInt8] = []
    private var nextID = 0
    private var session: String?
    private let profile: String

    init() throws {
        guard let path = BrowserTests.chromium() else { throw Failure(description: "chromium is not installed") }
        profile = NSTemporaryDirectory() + "cdp-profile-\(UUID().uuidString.prefix(8))"
        var commands: [Int32] = [0, 0], replies: [Int32] = [0, 0]
        guard pipe(&commands) == 0, pipe(&replies) == 0 else { throw Failure(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, commands[0], 3)
        posix_spawn_file_actions_adddup2(&actions, replies[1], 4)
        for fd in [commands[0], commands[1], replies[0], replies[1]] where fd > 4 { posix_spawn_file_actions_addclose(&actions, fd) }
        let args = [path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
                    "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                    "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
                    "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"]
        let argv = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(commands[0])
        close(replies[1])
        toBrowser = commands[1]
        fromBrowser = replies[0]
        guard rc == 0 else { throw Failure(description: "cannot start chromium: \(rc)") }
        signal(SIGPIPE, SIG_IGN)

        let target = try call("Target.createTarget", ["url": "about:blank"], inSession: false)
        guard let targetID = target["targetId"] as? String else { throw Failure(description: "no target: \(target)") }
        let attached = try call("Target.attachToTarget", ["targetId": targetID, "flatten": true], inSession: false)
        session = attached["sessionId"] as? String
        _ = try call("Page.enable")
        _ = try call("Runtime.enable")
    }

    deinit { quit() }

    func quit() {
        guard pid > 0 else { return }
        _ = try? call("Browser.close", inSession: false, timeout: 5)
        for _ in 0..<50 where waitpid(pid, nil, WNOHANG) == 0 { usleep(100_000) }
        if waitpid(pid, nil, WNOHANG) == 0 { kill(pid, SIGKILL); _ = waitpid(pid, nil, 0) }
        pid = 0
        close(toBrowser)
        close(fromBrowser)
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Sends a command (to the page's session unless `inSession` is false) and returns its result.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:], inSession: Bool = true, timeout: Double = 30) throws -> [String: Any] {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if inSession, let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(toBrowser, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "chromium closed the pipe (\(method))") }
            offset += n
        }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let reply = try readMessage(deadline: deadline, method: method)
            guard reply["id"] as? Int == id else { continue }
            if let error = reply["error"] { throw Failure(description: "\(method): \(error)") }
            return reply["result"] as? [String: Any] ?? [:]
        }
    }

    private func readMessage(deadline: Date, method: String) throws -> [String: Any] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let data = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure(description: "no answer to \(method) in time") }
            var fds = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
            guard poll(&fds, 1, Int32(min(left, 1) * 1000)) >= 0 else { continue }
            guard fds.revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(fromBrowser, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "chromium exited (\(method))") }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    // MARK: Page helpers

    /// Evaluates `expression` in the page (promises awaited) and returns its JSON value.
    func eval(_ expression: String) throws -> Any? {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            throw Failure(description: "script failed: \(expression.prefix(120)): \(exception["exception"] ?? exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    func evalString(_ expression: String) throws -> String { (try eval(expression) as? String) ?? "" }

    /// Polls `condition` (a JavaScript expression) until it is truthy; throws with `what` after `timeout`.
    func wait(_ condition: String, timeout: Double = 20, _ what: String) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let value = try eval("!!(\(condition))") as? Bool, value { return }
            usleep(40_000)
        }
        throw Failure(description: "timed out waiting for \(what) (\(condition))")
    }

    func viewport(width: Int, height: Int, scale: Double, touch: Bool) throws {
        try call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": scale, "mobile": touch])
        try call("Emulation.setTouchEmulationEnabled", ["enabled": touch, "maxTouchPoints": touch ? 5 : 1])
    }

    func navigate(_ url: String) throws {
        try call("Page.navigate", ["url": url])
        try wait("document.readyState === 'complete' && location.href === \(Self.quoted(url))", "\(url) to load")
    }

    func screenshot(to path: String) throws {
        let shot = try call("Page.captureScreenshot", ["format": "png"])
        guard let text = shot["data"] as? String, let data = Data(base64Encoded: text) else { throw Failure(description: "no screenshot") }
        try data.write(to: URL(fileURLWithPath: path))
    }

    func click(x: Double, y: Double) throws {
        for type in ["mousePressed", "mouseReleased"] {
            try call("Input.dispatchMouseEvent", ["type": type, "x": x, "y": y, "button": "left", "clickCount": 1])
        }
    }

    func key(_ key: String, code: String, keyCode: Int, text: String? = nil) throws {
        var down: [String: Any] = ["type": text == nil ? "rawKeyDown" : "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": keyCode]
        if let text { down["text"] = text }
        try call("Input.dispatchKeyEvent", down)
        try call("Input.dispatchKeyEvent", ["type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": keyCode])
    }

    func wheel(x: Double, y: Double, deltaY: Double) throws {
        try call("Input.dispatchMouseEvent", ["type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": deltaY])
    }

    /// A touch gesture: each step is the positions of the fingers down at that moment.
    func touch(_ steps: [[(Double, Double)]]) throws {
        for (i, points) in steps.enumerated() {
            let type = i == 0 ? "touchStart" : "touchMove"
            try call("Input.dispatchTouchEvent", ["type": type, "touchPoints": points.enumerated().map { n, p in
                ["x": p.0, "y": p.1, "id": n] as [String: Any] }])
        }
        try call("Input.dispatchTouchEvent", ["type": "touchEnd", "touchPoints": [[String: Any]]()])
    }

    func tap(x: Double, y: Double) throws { try touch([[(x, y)]]) }

    /// Back, as the browser's button does it.
    func goBack() throws {
        let history = try call("Page.getNavigationHistory")
        guard let index = history["currentIndex"] as? Int, let entries = history["entries"] as? [[String: Any]], index > 0,
              let id = entries[index - 1]["id"] as? Int else { throw Failure(description: "no history to go back to") }
        try call("Page.navigateToHistoryEntry", ["entryId": id])
    }

    static func quoted(_ s: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [s])
        let text = String(decoding: data, as: UTF8.self)
        return String(text.dropFirst().dropLast())
    }
}
