import Foundation
import Spawn

/// A temporary XDG tree with recorder programs as the "apps". Every XDG
/// variable points inside it, so nothing from the real desktop is found and
/// no real application can be launched.
public final class XDGTree: Sendable {
    public let root: String
    /// Where recorders write what they received.
    public let records: String

    /// - Parameter fixedRoot: a path to make the tree at, instead of a fresh
    ///   temporary directory (anything there is removed first): the fixed desk
    ///   the docs' screenshots are taken on, so that paths in them never change.
    public init(fixedRoot: String? = nil) throws {
        if let fixedRoot {
            try? FileManager.default.removeItem(atPath: fixedRoot)
            try FileManager.default.createDirectory(atPath: fixedRoot, withIntermediateDirectories: true)
            root = fixedRoot
        } else {
            root = try makeTemporaryDirectory(prefix: "openurld-xdg")
        }
        records = root + "/records"
        for dir in ["config", "etc-xdg", "data/applications", "usr/share/applications", "opt/share/applications", "bin", "records", "home"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        try write("bin/recorder", Self.recorderScript, executable: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// The environment that confines a process to this tree.
    public var environment: [String: String] {
        [
            "HOME": root + "/home",
            "XDG_CONFIG_HOME": root + "/config",
            "XDG_CONFIG_DIRS": root + "/etc-xdg",
            "XDG_DATA_HOME": root + "/data",
            "XDG_STATE_HOME": root + "/state",
            "XDG_DATA_DIRS": root + "/usr/share:" + root + "/opt/share",
            "PATH": root + "/bin:/usr/bin:/bin",
            "RECORDS": records,
            "LANG": "C.UTF-8",
            // No system-wide Flatpak or snap applications: only the tree's.
            "OPENURLD_EXTRA_DATA_DIRS": "",
        ]
    }

    /// Writes a file below the root, creating directories.
    ///
    /// An executable is written by another process (`install`), so that this
    /// one never holds it open for writing: a test process's threads start
    /// programs all the time, and a child forked while the file was open
    /// would hold it until its own exec, and running the file meanwhile,
    /// as an app or through `gio`, `xdg-open` or D-Bus activation, fails
    /// with ETXTBSY ("Text file busy").
    public func write(_ relativePath: String, _ content: String, executable: Bool = false) throws {
        let path = root + "/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if executable {
            try install(content, at: path)
        } else {
            try content.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    /// `install -m 755 SOURCE path`, from a plain file this process writes
    /// and never runs. Waited for with `waitpid`: Foundation's
    /// `Process.waitUntilExit` polls every 50 ms, and held a test's thread
    /// (of two in CI's pool) that long for every tree.
    private func install(_ content: String, at path: String) throws {
        let source = root + "/.install-source-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try content.write(toFile: source, atomically: false, encoding: .utf8)
        defer { unlink(source) }
        let pid = try spawn("/usr/bin/install", arguments: ["install", "-m", "755", source, path], environment: [], stderr: .inherit)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw FixtureError("install could not write \(path) (status \(status))") }
    }

    /// Appends to a file below the root, in place: one write and one close,
    /// as an editor that does not replace the file saves it.
    public func append(_ relativePath: String, _ content: String) throws {
        guard let handle = FileHandle(forWritingAtPath: root + "/" + relativePath) else { throw FixtureError("cannot open \(relativePath) to append to it") }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(content.utf8))
        try handle.close()
    }

    /// A desktop entry for the recorder; `exec` defaults to `recorder NAME %u`.
    public func app(
        _ id: String, in directory: String = "data/applications", schemes: [String], exec: String? = nil,
        extra: String = ""
    ) throws {
        let name = id.replacingOccurrences(of: ".desktop", with: "")
        let mime = schemes.map { "x-scheme-handler/\($0);" }.joined()
        try write(directory + "/" + id, """
            [Desktop Entry]
            Type=Application
            Name=\(name)
            Exec=\(exec ?? "recorder \(name) %u")
            MimeType=\(mime)
            \(extra)
            """)
    }

    /// What one recorder run received.
    public struct Record: Sendable {
        public let app: String
        /// The arguments as text (a byte that is not UTF-8 shows as U+FFFD).
        public let arguments: [String]
        /// The arguments exactly as `execve` passed them.
        public let argumentBytes: [[UInt8]]
        public let environment: [String: String]
        public let descriptors: [String]
        public let pid: Int32
    }

    /// The records written so far, oldest first.
    public func recorded() -> [Record] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []).filter { $0.hasSuffix(".done") }
        return files.sorted().compactMap { file in
            let base = records + "/" + file.dropLast(5)
            guard let argv = FileManager.default.contents(atPath: base + ".args"),
                let env = try? String(contentsOfFile: base + ".env", encoding: .utf8),
                let fds = try? String(contentsOfFile: base + ".fds", encoding: .utf8),
                let pid = Int32(file.split(separator: "-").last!.dropLast(5))
            else { return nil }
            var argumentBytes = argv.split(separator: 0, omittingEmptySubsequences: false).map { Array($0) }
            argumentBytes.removeLast()  // after the final NUL
            let app = String(decoding: argumentBytes.removeFirst(), as: UTF8.self)
            let arguments = argumentBytes.map { String(decoding: $0, as: UTF8.self) }
            var environment: [String: String] = [:]
            for line in env.split(separator: "\n") {
                if let eq = line.firstIndex(of: "=") { environment[String(line[..<eq])] = String(line[line.index(after: eq)...]) }
            }
            return Record(app: app, arguments: arguments, argumentBytes: argumentBytes, environment: environment,
                          descriptors: fds.split(separator: "\n").map(String.init), pid: pid)
        }
    }

    /// Whether a recorder of this tree is still running. An open is answered
    /// once `posix_spawn` has executed the application, so when the opens
    /// that started them have returned, no recorder running means every
    /// record is written; recorders finish in any order, so a later launch's
    /// record says nothing of an earlier one's. (A finished recorder not yet
    /// reaped is a zombie, whose command line is empty.)
    public var recorderIsRunning: Bool {
        let recorder = root + "/bin/recorder"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where entry.allSatisfy(\.isNumber) {
            guard let cmdline = FileManager.default.contents(atPath: "/proc/" + entry + "/cmdline") else { continue }
            if String(decoding: cmdline, as: UTF8.self).contains(recorder) { return true }
        }
        return false
    }

    /// The records once no recorder runs and `done` holds for them, or
    /// whatever is recorded when `limit` passes. Whether a recorder runs is
    /// asked before the records are read: a recorder that finishes between
    /// a read and the question would otherwise be left out of the answer.
    /// So every launch made before the call (`recorderIsRunning`) is in it.
    /// The limit is generous because it is only reached when something is
    /// wrong: a loaded CI machine once took 20 s over the test around it.
    public func settledRecords(within limit: Duration = .seconds(20), until done: ([Record]) -> Bool) async throws -> [Record] {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while true {
            let running = recorderIsRunning
            let records = recorded()
            if !running && done(records) || clock.now >= deadline { return records }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until `count` records exist (launches are asynchronous to the caller).
    public func waitForRecords(_ count: Int, within limit: Duration = .seconds(5)) async throws -> [Record] {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            let records = recorded()
            if records.count >= count { return records }
            try await Task.sleep(for: .milliseconds(10))
        }
        return recorded()
    }

    /// Records its argv (NUL-separated, first the app name), its environment
    /// (plus SESSION_ID, its session), the targets of its open descriptors,
    /// and its PID in the file name.
    static let recorderScript = """
        #!/bin/sh
        base="$RECORDS/$(date +%s%N)-$$"
        printf '%s\\0' "$@" > "$base.args"
        { env; echo "SESSION_ID=$(cut -d' ' -f6 /proc/$$/stat)"; } > "$base.env"
        for fd in /proc/$$/fd/*; do readlink "$fd"; done > "$base.fds"
        : > "$base.done"

        """
}
