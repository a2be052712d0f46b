import DBus
import Foundation
import Spawn
import Synchronization

/// A private `dbus-daemon` for one test: its own config, its own socket in a
/// temporary directory, stopped by PID when the test ends. Tests never see
/// the session bus of whoever runs them.
public final class PrivateBus: Sendable {
    /// The address to connect to, e.g. `unix:path=/tmp/openurld-bus.XXXX/bus`.
    public let address: String
    /// The temporary directory holding the config and the socket.
    public let directory: String
    /// The process ID of the bus daemon.
    public let pid: pid_t

    /// Starts a bus.
    /// - Parameters:
    ///   - serviceDirectories: `<servicedir>`s for D-Bus activation tests.
    ///   - environment: the environment activated services inherit.
    ///   - repliesPerConnection: the bus's `max_replies_per_connection`, the
    ///     pending-reply quota (a real session bus allows about 50 000).
    public init(serviceDirectories: [String] = [], environment: [String: String]? = nil, repliesPerConnection: Int = 50000) throws {
        directory = try makeTemporaryDirectory(prefix: "openurld-bus")
        let config = directory + "/bus.conf"
        try busConfig(socket: directory + "/bus", serviceDirectories: serviceDirectories, repliesPerConnection: repliesPerConnection)
            .write(toFile: config, atomically: true, encoding: .utf8)

        let childEnvironment = (environment ?? ProcessInfo.processInfo.environment)
            .filter { $0.key != "DBUS_SESSION_BUS_ADDRESS" }.map { "\($0.key)=\($0.value)" }
        // dbus-daemon prints its address once it listens.
        (pid, address) = try spawnAndReadFirstLine(
            "/usr/bin/dbus-daemon", arguments: ["dbus-daemon", "--config-file=" + config, "--nofork", "--print-address=1"],
            environment: childEnvironment, what: "an address")
    }

    /// The environment a child process needs to use this bus as its session bus.
    public var sessionEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return environment
    }

    /// Opens a new client connection to this bus.
    public func connect() async throws -> Connection {
        try await Connection.connect(to: address, timeout: .seconds(10))
    }

    /// Stops the daemon (SIGTERM, then SIGKILL after 2 s), reaps it, removes its directory.
    public func stop() {
        Binaries.stop(pid)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Waits for a child to exit and returns its raw wait status, or `nil` if it
/// is still running after `within`.
public func reap(_ pid: pid_t, within limit: Duration? = nil) -> Int32? {
    let clock = ContinuousClock()
    let deadline = limit.map { clock.now + $0 }
    var status: Int32 = 0
    while true {
        let result = waitpid(pid, &status, deadline == nil ? 0 : WNOHANG)
        if result == pid { return status }
        if result < 0 && errno != EINTR { return nil }
        if let deadline {
            if clock.now >= deadline { return nil }
            usleep(10_000)
        }
    }
}

/// Runs `body` with a fresh private bus, stopping it afterwards whatever happens.
public func withPrivateBus<T>(
    serviceDirectories: [String] = [], environment: [String: String]? = nil, repliesPerConnection: Int = 50000,
    _ body: (PrivateBus) async throws -> T
) async throws -> T {
    let bus = try PrivateBus(serviceDirectories: serviceDirectories, environment: environment, repliesPerConnection: repliesPerConnection)
    defer { bus.stop() }
    return try await body(bus)
}

/// The session-bus policy of a stock dbus-daemon, listening on one socket,
/// activating services only from the given directories.
func busConfig(socket: String, serviceDirectories: [String], repliesPerConnection: Int = 50000) -> String {
    let services = serviceDirectories.map { "  <servicedir>\($0)</servicedir>\n" }.joined()
    return """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <keep_umask/>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
        \(services)  <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
          <limit name="max_replies_per_connection">\(repliesPerConnection)</limit>
          <limit name="max_match_rules_per_connection">50000</limit>
        </busconfig>

        """
}

/// Starts a server that prints one line on standard output once it is ready
/// (dbus-daemon's address, Xvfb's display number); returns its PID and that line.
func spawnAndReadFirstLine(_ program: String, arguments: [String], environment: [String], what: String) throws -> (pid_t, String) {
    var fds: [Int32] = [0, 0]
    // No O_CLOEXEC needed: spawn closes every descriptor above 2 in the child.
    guard pipe(&fds) == 0 else { throw FixtureError("pipe failed: errno \(errno)") }
    defer { close(fds[0]) }
    let pid: pid_t
    do {
        pid = try spawn(program, arguments: arguments, environment: environment, stdout: .descriptor(fds[1]), stderr: .null)
    } catch {
        close(fds[1])
        throw error
    }
    close(fds[1])
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while read(fds[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
    guard !line.isEmpty else {
        kill(pid, SIGKILL)
        _ = reap(pid)
        throw FixtureError("\(arguments[0]) did not print \(what)")
    }
    return (pid, String(decoding: line, as: UTF8.self))
}

/// A failure of the test fixture itself, not of the code under test.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Creates a fresh directory under `$TMPDIR` (or /tmp), removed with all it
/// holds when the test process exits, whether or not its test removed it:
/// a test that stops half-way, or forgets, leaves nothing behind
/// (`scripts/test` fails on any `openurld-*` left in its `TMPDIR`).
public func makeTemporaryDirectory(prefix: String) throws -> String {
    _ = removedAtExit
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array((base + "/\(prefix).XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw FixtureError("mkdtemp failed: errno \(errno)") }
    let directory = String(cString: made)
    temporaryDirectories.withLock { $0.append(directory) }
    return directory
}

/// Every directory `makeTemporaryDirectory` made in this process.
private let temporaryDirectories = Mutex<[String]>([])

/// Registers, once, the removal of those directories at exit.
private let removedAtExit: Void = {
    atexit {
        for directory in temporaryDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: directory) }
    }
}()
