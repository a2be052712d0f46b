import DBus
import DispatcherAPI
import Foundation
import Spawn
import Testing
import TestSupport

/// The built `openurld` binary, driven only with gdbus and busctl.
@Suite(.timeLimit(.minutes(1)))
struct EndToEndTests {
    func gdbus(_ bus: PrivateBus, _ method: String, _ arguments: String...) async throws -> CommandResult {
        try await run(["gdbus", "call", "--address", bus.address, "--dest", "org.openurld.Dispatcher1",
                       "--object-path", "/org/openurld/Dispatcher1", "--method", method] + arguments)
    }

    @Test func theBinaryServesItsInterfaceToIndependentClients() async throws {
        try await withPrivateBus { bus in
            let log = try makeTemporaryDirectory(prefix: "openurld-log") + "/stderr"
            let logFD = open(log, O_WRONLY | O_CREAT, 0o600)
            defer { close(logFD) }
            let tree = try XDGTree()
            try tree.app("browser.desktop", schemes: ["https"])
            let pid = try await Binaries.startDaemon(on: bus, tree: tree, stderr: logFD)
            defer { kill(pid, SIGKILL); _ = reap(pid) }

            let open = try await gdbus(bus, "org.openurld.Dispatcher1.OpenURL", "https://example.com/")
            #expect(open.stdout == "(true,)\n", "\(open.stderr)")
            #expect(try await tree.waitForRecords(1).first?.arguments == ["https://example.com/"])
            let nothing = try await gdbus(bus, "org.openurld.Dispatcher1.OpenURL", "gopher://example.com/")
            #expect(nothing.stdout == "(false,)\n", "\(nothing.stderr)")
            let invalid = try await gdbus(bus, "org.openurld.Dispatcher1.OpenURL", "no scheme")
            #expect(invalid.status != 0)
            #expect(invalid.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: URL contains whitespace at offset 2"))
            let explain = try await gdbus(bus, "org.openurld.Dispatcher1.Explain", "https://example.com/")
            #expect(explain.stdout == "(@aa{sv} [], 'browser.desktop')\n")

            let list = try await run(["busctl", "--address=" + bus.address, "call", "org.openurld.Dispatcher1",
                                      "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "ListHandlers"])
            #expect(list.stdout == "aa{sv} 0\n", "\(list.stderr)")
            let version = try await run(["busctl", "--address=" + bus.address, "get-property", "org.openurld.Dispatcher1",
                                         "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "Version"])
            #expect(version.stdout == "s \"\(DispatcherAPI.version)\"\n")

            // A second instance refuses politely.
            let second = try await run([Binaries.openurld, "--address", bus.address])
            #expect(second.status == 1)
            #expect(second.stderr.contains("org.openurld.Dispatcher1 is already owned by"))

            // SIGTERM: exit 0 after giving the name up.
            kill(pid, SIGTERM)
            let status = reap(pid, within: .seconds(5))
            #expect(status.map { $0 & 0x7F == 0 && ($0 >> 8) & 0xFF == 0 } == true)
            let logged = try String(contentsOfFile: log, encoding: .utf8)
            #expect(logged.contains("<6>open https://example.com/… from"))
            #expect(logged.contains(": opened with browser.desktop"))
            #expect(logged.contains("<6>received SIGTERM"))
        }
    }

    @Test func replaceTakesOverPolitely() async throws {
        try await withPrivateBus { bus in
            let tree = try XDGTree()
            let directory = try makeTemporaryDirectory(prefix: "openurld-replace")
            let firstLog = open(directory + "/first", O_WRONLY | O_CREAT, 0o600)
            defer { close(firstLog) }
            let first = try await Binaries.startDaemon(on: bus, tree: tree, stderr: firstLog)
            defer { Binaries.stop(first) }
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let firstOwner = try await watcher.owner(of: DispatcherAPI.busName)
            let second = try spawn(
                Binaries.openurld, arguments: ["openurld", "--address", bus.address, "--replace"],
                environment: tree.environment.map { "\($0.key)=\($0.value)" })
            defer { Binaries.stop(second) }
            // The first instance hands over and exits 0; the second owns the name.
            let status = reap(first, within: .seconds(5))
            #expect(status.map { $0 & 0x7F == 0 && ($0 >> 8) & 0xFF == 0 } == true, "first instance: \(String(describing: status))")
            let newOwner = try await watcher.owner(of: DispatcherAPI.busName)
            #expect(newOwner != nil && newOwner != firstOwner)
            let logged = try String(contentsOfFile: directory + "/first", encoding: .utf8)
            #expect(logged.contains("another instance took over org.openurld.Dispatcher1"))
        }
    }

    @Test func introspectionMatchesTheInterfaceXMLInTheRepository() async throws {
        try await withPrivateBus { bus in
            let pid = try await Binaries.startDaemon(on: bus, tree: try XDGTree(), stderr: 2)
            defer { kill(pid, SIGKILL); _ = reap(pid) }
            let live = try await run(["gdbus", "introspect", "--address", bus.address, "--dest", "org.openurld.Dispatcher1",
                                      "--object-path", "/org/openurld/Dispatcher1", "--xml"])
            #expect(live.status == 0, "gdbus: \(live.stderr)")
            let documented = try String(contentsOfFile: Binaries.repository + "/docs/org.openurld.Dispatcher1.xml", encoding: .utf8)
            let served: Set = ["org.openurld.Dispatcher1", "org.freedesktop.Application"]
            let liveShape = introspectionShape(live.stdout, interfaces: served)
            #expect(liveShape.count == 2)
            #expect(liveShape == introspectionShape(documented, interfaces: served))
        }
    }

    @Test func usageErrorsAndHelp() async throws {
        let help = try await run([Binaries.openurld, "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("Usage: openurld [OPTION]..."))
        let version = try await run([Binaries.openurld, "--version"])
        #expect(version.stdout == "openurld \(DispatcherAPI.version)\n")
        let bad = try await run([Binaries.openurld, "--handler-timeout", "soon"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "openurld: --handler-timeout takes a number of seconds between 0 and 86400, not 'soon'\nTry 'openurld --help' for more information.\n")
        let noBus = try await run([Binaries.openurld, "--address", "unix:path=/nonexistent/bus"])
        #expect(noBus.status == 1)
        #expect(noBus.stderr.hasPrefix("<3>cannot connect to the bus:"))
    }
}
