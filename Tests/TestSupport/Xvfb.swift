import Foundation
import Synchronization
import Spawn

/// A private X server (Xvfb) for one test, on a display number it picks
/// itself (`-displayfd`), so tests never share or reach a real display.
public final class Xvfb: Sendable {
    /// `:N`, for `DISPLAY`.
    public let display: String
    public let pid: pid_t

    public init() throws {
        guard let program = findExecutable("Xvfb", path: "/usr/bin:/bin") else {
            throw FixtureError("Xvfb is not installed (run scripts/ensure-deps test)")
        }
        // Xvfb writes the display number once it accepts connections.
        let (pid, number) = try spawnAndReadFirstLine(
            program, arguments: ["Xvfb", "-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "800x600x24"],
            environment: ["PATH=/usr/bin:/bin"], what: "a display number")
        self.pid = pid
        display = ":" + number
    }

    public func stop() {
        Binaries.stop(pid)
    }
}

/// Runs `body` with a fresh X server, stopping it afterwards.
public func withXvfb<T>(_ body: (Xvfb) async throws -> T) async throws -> T {
    let server = try Xvfb()
    defer { server.stop() }
    return try await body(server)
}

/// Small C programs the tests use as real peers (`Tests/Peers/*.c`), built
/// with gcc and pkg-config on first use, next to the test build.
public enum Peers {
    /// The builds started in this process, by name: tests running at once
    /// share one (two compilers renaming onto one path, or one writing while
    /// another runs it, fail with "Text file busy").
    private static let builds = Mutex<[String: Task<String, any Error>]>([:])

    /// Builds `Tests/Peers/NAME.c` against the pkg-config `packages` (once
    /// per test process); returns the program's path.
    public static func build(_ name: String, packages: [String]) async throws -> String {
        let task = builds.withLock { started in
            if let task = started[name] { return task }
            let task = Task { try await compile(name, packages: packages) }
            started[name] = task
            return task
        }
        return try await task.value
    }

    private static func compile(_ name: String, packages: [String]) async throws -> String {
        let source = Binaries.repository + "/Tests/Peers/" + name + ".c"
        let output = Binaries.directory + "/test-peers/" + name
        try FileManager.default.createDirectory(atPath: Binaries.directory + "/test-peers", withIntermediateDirectories: true)
        let flags = try await run(["pkg-config", "--cflags", "--libs"] + packages)
        guard flags.status == 0 else { throw FixtureError("pkg-config \(packages): \(flags.stderr) (run scripts/ensure-deps test)") }
        // Built anew each run: a few hundred milliseconds, and never stale.
        let temporary = output + ".\(getpid())"
        let compile = try await run(["gcc", "-O1", "-Wall", "-Werror", "-o", temporary, source]
            + flags.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty })
        guard compile.status == 0 else { throw FixtureError("cannot build \(source):\n\(compile.stderr)") }
        guard rename(temporary, output) == 0 else { throw FixtureError("cannot install \(output)") }
        return output
    }
}
