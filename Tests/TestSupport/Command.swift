import Foundation
import Spawn

/// What a finished command printed and how it exited.
public struct CommandResult: Sendable {
    /// The exit status, or 128 + the signal number when a signal ended it.
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// Whether it was killed for running past its timeout.
    public let timedOut: Bool
}

/// Runs a program (no shell) and waits for it, killing it after `timeout`.
///
///     let result = try await run(["gdbus", "introspect", "--address", bus.address, ...])
public func run(
    _ arguments: [String], environment: [String: String]? = nil, input: String = "",
    timeout: Duration = .seconds(30)
) async throws -> CommandResult {
    let directory = try makeTemporaryDirectory(prefix: "openurld-run")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try input.write(toFile: directory + "/in", atomically: false, encoding: .utf8)
    let stdin = open(directory + "/in", O_RDONLY)
    let stdout = open(directory + "/out", O_WRONLY | O_CREAT, 0o600)
    let stderr = open(directory + "/err", O_WRONLY | O_CREAT, 0o600)
    defer { [stdin, stdout, stderr].forEach { close($0) } }

    let environment = environment ?? ProcessInfo.processInfo.environment
    guard let program = findExecutable(arguments[0], path: environment["PATH"]) else {
        throw FixtureError("\(arguments[0]) is not installed (run scripts/ensure-deps test)")
    }
    let pid = try spawn(
        program, arguments: arguments, environment: environment.map { "\($0.key)=\($0.value)" },
        stdin: .descriptor(stdin), stdout: .descriptor(stdout), stderr: .descriptor(stderr))

    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var status: Int32 = 0
    var timedOut = false
    while waitpid(pid, &status, WNOHANG) == 0 {
        if clock.now >= deadline, !timedOut {
            kill(pid, SIGKILL)
            timedOut = true
        }
        try? await Task.sleep(for: .milliseconds(5))
    }
    let signal = status & 0x7F
    return CommandResult(
        status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal,
        stdout: (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? "",
        timedOut: timedOut)
}
