import DBus
import DispatcherAPI
import Foundation
import Spawn

/// The products under test: they sit next to the test bundle in the build directory.
public enum Binaries {
    public static let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    public static let openurld = directory + "/openurld"
    /// `openurl` as installed: the fast front (`Front/build`, which
    /// `scripts/test` runs), handing on to the full CLI as it does from
    /// `/usr/bin` (`front/libexec/openurld/openurl` links to `fullCLI`).
    public static let openurl = directory + "/front/bin/openurl"
    /// The full CLI, as SwiftPM builds it.
    public static let fullCLI = directory + "/openurl"
    public static let dmenuChooser = directory + "/openurld-chooser-dmenu"
    public static let chooser = directory + "/openurld-chooser"
    /// The repository root (for docs/ and packaging/).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Starts the built `openurld --address` on `bus`, confined to `tree` so
    /// that its fallback can only launch the tree's recorders; returns once it
    /// owns its name.
    public static func startDaemon(on bus: PrivateBus, tree: XDGTree, _ extra: [String] = [], stderr: Int32 = 2) async throws -> pid_t {
        let pid = try spawn(
            openurld, arguments: ["openurld", "--address", bus.address] + extra,
            environment: tree.environment.map { "\($0.key)=\($0.value)" }, stderr: .descriptor(stderr))
        let watcher = try await bus.connect()
        defer { watcher.close() }
        for _ in 0..<500 {
            if try await watcher.owner(of: "org.openurld.Dispatcher1") != nil { return pid }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(pid, SIGKILL)
        _ = reap(pid)
        throw FixtureError("openurld did not take its name within 5 s")
    }

    /// Stops a process started by a test: SIGTERM, then SIGKILL after 2 s.
    public static func stop(_ pid: pid_t) {
        kill(pid, SIGTERM)
        if reap(pid, within: .seconds(2)) == nil {
            kill(pid, SIGKILL)
            _ = reap(pid)
        }
    }
}

/// The built daemon on a private bus, confined to `tree`, with a client
/// connection to it; `arguments` are added to its command line, `stderr`
/// is where its log goes (nowhere by default).
public func withDaemon(
    tree: XDGTree, arguments: [String] = [], stderr: Int32? = nil,
    _ body: (_ bus: PrivateBus, _ client: DispatcherClient, _ daemon: pid_t) async throws -> Void
) async throws {
    try await withPrivateBus { bus in
        let log = stderr ?? open("/dev/null", O_WRONLY)
        defer { if stderr == nil { close(log) } }
        let daemon = try await Binaries.startDaemon(on: bus, tree: tree, arguments, stderr: log)
        defer { Binaries.stop(daemon) }
        let connection = try await bus.connect()
        defer { connection.close() }
        try await body(bus, DispatcherClient(connection: connection), daemon)
    }
}

