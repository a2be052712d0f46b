import Foundation
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
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw FixtureError("pipe failed: errno \(errno)") }
        defer { close(fds[0]) }
        do {
            pid = try spawn(
                program, arguments: ["Xvfb", "-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "800x600x24"],
                environment: ["PATH=/usr/bin:/bin"], stdout: .descriptor(fds[1]), stderr: .null)
        } catch {
            close(fds[1])
            throw error
        }
        close(fds[1])
        // Xvfb writes the display number once it accepts connections.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fds[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard !line.isEmpty else {
            kill(pid, SIGKILL)
            _ = reap(pid)
            throw FixtureError("Xvfb did not print a display number")
        }
        display = ":" + String(decoding: line, as: UTF8.self)
    }

    public func stop() {
        kill(pid, SIGTERM)
        if reap(pid, within: .seconds(2)) == nil {
            kill(pid, SIGKILL)
            _ = reap(pid)
        }
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
    /// Builds `Tests/Peers/NAME.c` against the pkg-config `packages`; returns the program's path.
    public static func build(_ name: String, packages: [String]) async throws -> String {
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
