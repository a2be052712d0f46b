import DBus
import DispatcherAPI
import Foundation
import Spawn
import Synchronization
import Testing
import TestSupport

/// Starting and stopping the built daemon the way systemd does (issue 14,
/// items 2 and 3). One round at a time: each holds a bus and a daemon, and
/// the whole test run shares the kernel's 128 inotify instances per user.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct LifecycleTests {
    /// Callers waiting on a slow handler when SIGTERM arrives get the
    /// handler's answer, not `NoReply`. (The lost replies were a race between
    /// the last reply and the close: one round in ten of thirty calls lost some.)
    @Test(arguments: 0..<10) func aCallInFlightAtSIGTERMGetsItsReply(round: Int) async throws {
        let tree = try XDGTree()
        try tree.app("browser.desktop", schemes: ["https"])
        try await withDaemon(tree: tree) { bus, client, daemon in
            let handlerConnection = try await bus.connect()
            defer { handlerConnection.close() }
            let (asked, wasAsked) = AsyncStream<Void>.makeStream()
            let host = HandlerHost(client: DispatcherClient(connection: handlerConnection))
            _ = try await host.add(.init(schemes: ["https"], name: "slow")) { _, _ in
                wasAsked.yield()
                try? await Task.sleep(for: .milliseconds(500))
                return .handled
            }
            let calls = (0..<30).map { index in
                Task { try await client.open("https://slow.example/\(index)") }
            }
            var seen = 0
            for await _ in asked {
                seen += 1
                if seen == calls.count { break }
            }
            kill(daemon, SIGTERM)
            for call in calls {
                let result = try await call.value
                #expect(result.outcome == .handled)
            }
            let status = reap(daemon, within: .seconds(10))
            #expect(status.map { $0 & 0x7F == 0 && ($0 >> 8) & 0xFF == 0 } == true, "\(String(describing: status))")
            #expect(tree.recorded().isEmpty)
        }
    }

    /// systemd may send ExecReload='s SIGHUP as soon as the name is owned:
    /// the daemon must already be handling it then.
    @Test func aSIGHUPAsSoonAsTheNameIsOwnedReloads() async throws {
        try await withPrivateBus { bus in
            let tree = try XDGTree()
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let signalled = Mutex<pid_t?>(nil)
            let (owned, becameOwned) = AsyncStream<Void>.makeStream()
            _ = try await watcher.watchNameOwners(of: DispatcherAPI.busName) { change in
                guard change.newOwner != nil else { return }
                // Straight from the signal handler, before anything else can run.
                if let pid = signalled.withLock({ $0 }) { kill(pid, SIGHUP) }
                becameOwned.yield()
            }
            let devNull = open("/dev/null", O_WRONLY)
            defer { close(devNull) }
            for _ in 0..<5 {
                let pid = try spawn(
                    Binaries.openurld, arguments: ["openurld", "--address", bus.address],
                    environment: tree.environment.map { "\($0.key)=\($0.value)" }, stderr: .descriptor(devNull))
                signalled.withLock { $0 = pid }
                for await _ in owned { break }
                // Still serving: it answers, and has not exited.
                #expect(try await DispatcherClient(connection: watcher).version() == DispatcherAPI.version)
                #expect(reap(pid, within: .zero) == nil, "openurld died of an early SIGHUP")
                Binaries.stop(pid)
            }
        }
    }
}
