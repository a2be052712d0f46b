import CFront
import SafeText

/// What the front asks of the kernel: its arguments and environment as
/// bytes, standard error, files, and running the full CLI.
enum System {
    /// Writes `text` to standard error whole; a closed pipe loses it (there is nowhere left to say so).
    static func writeError(_ text: String) {
        _ = writeAll(text, to: 2)
    }

    /// Writes `text` to standard output whole; `false` when it could not.
    static func writeOutput(_ text: String) -> Bool { writeAll(text, to: 1) }

    private static func writeAll(_ text: String, to descriptor: Int32) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && cfront_errno() == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// One `openurl:` error line, escaped as the full CLI's `Console.error`
    /// escapes it; `hint`, our own text, follows on a line of its own.
    static func error(_ text: String, hint: String? = nil) {
        writeError("openurl: " + displayable(text) + "\n" + (hint.map { $0 + "\n" } ?? ""))
    }

    /// An environment variable, decoded as the full CLI decodes it.
    static func variable(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return EscapedBytes.decode(cString: value)
    }

    /// Whether `path` names something (`lstat`), as `FileSystem.exists` says.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return EscapedBytes.withCString(path) { lstat($0, &info) } == 0
    }

    static var standardErrorIsATerminal: Bool { isatty(2) != 0 }

    /// The full CLI, found from the kernel's path of this program (never
    /// from `PATH` or `argv[0]`): `fullCLIFromFront` from its directory, as
    /// a C string (NUL-terminated).
    static func fullCLI() -> [CChar]? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: pointer.count) {
                readlink("/proc/self/exe", $0, pointer.count - 1)
            }
        }
        guard length > 0, let slash = buffer[..<length].lastIndex(of: UInt8(ascii: "/")) else { return nil }
        return (Array(buffer[...slash]) + Array(fullCLIFromFront.utf8) + [0]).map { CChar(bitPattern: $0) }
    }

    /// Replaces this process with the full CLI, given `arguments` (each
    /// exactly as the front received it) under `argv[0]` `openurl`. Returns
    /// only when that failed, with the status to exit with.
    static func handOn(_ arguments: [UnsafeMutablePointer<CChar>?]) -> Int32 {
        guard let program = fullCLI() else {
            error("cannot find the full openurl: /proc/self/exe cannot be read")
            return 3
        }
        let status = withArgv(["openurl"], then: arguments) { argv in
            _ = execv(program, argv)
            return cfront_errno()
        }
        let path = EscapedBytes.decode(program.dropLast().map { UInt8(bitPattern: $0) })
        error("cannot run the full openurl (" + path + "): " + String(cString: strerror(status)))
        return 3
    }

    /// Runs the full CLI with `words` under `argv[0]` `name` and waits for it.
    /// - Returns: its exit status, or 3 when it could not be run.
    static func run(as name: String, _ words: [String]) -> Int32 {
        guard let program = fullCLI() else { return 3 }
        let owned: [UnsafeMutablePointer<CChar>?] = words.map { EscapedBytes.withCString($0) { strdup($0) } }
        defer { owned.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = withArgv([name], then: owned) { argv in posix_spawn(&pid, program, nil, nil, argv, environ) }
        guard spawned == 0 else { return 3 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 { guard cfront_errno() == EINTR else { return 3 } }
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 3
    }

    /// `first` (our own words) followed by `rest` (borrowed C strings), as a NULL-terminated argv.
    private static func withArgv<R>(
        _ first: [String], then rest: [UnsafeMutablePointer<CChar>?], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R
    ) -> R {
        let own: [UnsafeMutablePointer<CChar>?] = first.map { word in word.withCString { strdup($0) } }
        defer { own.forEach { free($0) } }
        let argv = own + rest + [nil]
        return argv.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
