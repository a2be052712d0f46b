import DBus
import Foundation
import Spawn
import Testing
import TestSupport

/// The README's `scripts/run`, run for real (with the test build standing in
/// for its release build).
@Suite(.timeLimit(.minutes(1)))
struct ScriptsTests {
    /// How the script is told to stop: SIGTERM to it (a service manager,
    /// `kill`), or SIGHUP to its whole process group, as a terminal that
    /// closes sends it. The daemon and the bus both take SIGHUP as "reload",
    /// so only the script can end them then.
    enum Stop: String, CaseIterable, CustomTestStringConvertible {
        case terminated, hungUp
        var testDescription: String { rawValue }
    }

    /// Without a session bus it starts a private one; SIGTERM, or the
    /// terminal closing, stops the daemon and the bus and removes its
    /// directory (issue 14, item 10).
    @Test(arguments: Stop.allCases)
    func scriptsRunCleansUpAfterItIsStopped(by stop: Stop) async throws {
        let root = try makeTemporaryDirectory(prefix: "openurld-scripts-run")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let temporary = root + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        // `swift build` stands for the release build: it names the test build's directory.
        try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try "#!/bin/sh\ncase \"$*\" in *--show-bin-path*) echo '\(Binaries.directory)' ;; esac\n"
            .write(toFile: root + "/bin/swift", atomically: true, encoding: .utf8)
        chmod(root + "/bin/swift", 0o755)
        let tree = try XDGTree()
        var environment = tree.environment
        environment["PATH"] = root + "/bin:/usr/bin:/bin"
        environment["TMPDIR"] = temporary
        environment["XDG_RUNTIME_DIR"] = root + "/no-runtime"
        let log = root + "/stderr"
        let logFD = open(log, O_WRONLY | O_CREAT, 0o600)
        defer { close(logFD) }
        let script = try spawn(
            "/bin/sh", arguments: ["sh", Binaries.repository + "/scripts/run"],
            environment: environment.map { "\($0.key)=\($0.value)" }, stderr: .descriptor(logFD), newSession: true)

        // Wait until the daemon serves on the private bus the script printed.
        var address: String?
        var served = false
        for _ in 0..<1000 where !served {
            try await Task.sleep(for: .milliseconds(10))
            let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if address == nil, let line = printed.split(separator: "\n").first(where: { $0.contains("export DBUS_SESSION_BUS_ADDRESS=") }) {
                address = line.split(separator: "'").dropFirst().first.map(String.init)
            }
            guard let address, let connection = try? await Connection.connect(to: address) else { continue }
            served = (try? await connection.owner(of: "org.openurld.Dispatcher1")) != nil
            connection.close()
        }
        #expect(served, "scripts/run did not serve: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).count == 1)

        switch stop {
        case .terminated: kill(script, SIGTERM)
        case .hungUp: kill(-script, SIGHUP)  // its own session: the group is the script's PID
        }
        let status = reap(script, within: .seconds(10))
        #expect(status != nil, "scripts/run did not exit when \(stop)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [], "its temporary directory was left behind")
        if let address { #expect((try? await Connection.connect(to: address)) == nil, "its bus still runs") }
        #expect(try String(contentsOfFile: log, encoding: .utf8).contains("received SIGTERM"), "the daemon was not stopped by SIGTERM")
        // Whatever of its process group is left, so that a failure leaves nothing running.
        kill(-script, SIGKILL)
        if status == nil { _ = reap(script) }
    }
}
