import DBus
import Foundation
import Testing
import TestSupport

/// Real, independent D-Bus implementations (GLib's gdbus, systemd's busctl)
/// talking to an object exported by the wrapper.
@Suite(.timeLimit(.minutes(1)))
struct IndependentClientTests {
    func withServer(_ body: (PrivateBus, Connection) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            defer { server.close() }
            server.export([BusTests.testInterface()], at: BusTests.path)
            try await body(bus, server)
        }
    }

    @Test func gdbusAcceptsTheIntrospectionAndSeesEveryMethod() async throws {
        try await withServer { bus, server in
            // Without --xml, gdbus parses our XML and prints its own rendering,
            // reading the properties through GetAll on the way.
            let result = try await run([
                "gdbus", "introspect", "--address", bus.address, "--dest", server.uniqueName.rawValue,
                "--object-path", BusTests.path.rawValue,
            ])
            #expect(result.status == 0, "gdbus: \(result.stderr)")
            let exported = BusTests.testInterface()
            let section = result.stdout.components(separatedBy: "interface org.example.Test {").last ?? ""
            let rendered = Set(
                section.components(separatedBy: "signals:").first!.split(separator: "\n")
                    .compactMap { line -> String? in
                        let trimmed = line.trimmingCharacters(in: .whitespaces)
                        guard let paren = trimmed.firstIndex(of: "("), trimmed.first?.isUppercase == true else { return nil }
                        return String(trimmed[..<paren])
                    })
            #expect(rendered == Set(exported.methods.map(\.name.rawValue)))
            #expect(section.contains("Add(in  i a,\n          in  i b,\n          out i sum);"))
            #expect(section.contains("Changed();"))
            #expect(section.contains("readonly s Version = '1.2.3';"))
            #expect(result.stdout.contains("interface org.freedesktop.DBus.Peer {"))
        }
    }

    @Test func parentNodesListTheirChildren() async throws {
        try await withServer { bus, server in
            let result = try await run([
                "gdbus", "introspect", "--address", bus.address, "--dest", server.uniqueName.rawValue,
                "--object-path", "/org", "--xml",
            ])
            #expect(result.status == 0, "gdbus: \(result.stderr)")
            #expect(result.stdout.contains("<node name=\"example\"/>"))
        }
    }

    @Test func gdbusCallsAMethod() async throws {
        try await withServer { bus, server in
            let result = try await run([
                "gdbus", "call", "--address", bus.address, "--dest", server.uniqueName.rawValue,
                "--object-path", BusTests.path.rawValue, "--method", "org.example.Test.Add", "40", "2",
            ])
            #expect(result.status == 0, "gdbus: \(result.stderr)")
            #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "(42,)")
        }
    }

    @Test func busctlCallsAMethodAndAsksThePeer() async throws {
        try await withServer { bus, server in
            let call = try await run([
                "busctl", "--address=" + bus.address, "call", server.uniqueName.rawValue,
                BusTests.path.rawValue, "org.example.Test", "Add", "ii", "40", "2",
            ])
            #expect(call.status == 0, "busctl: \(call.stderr)")
            #expect(call.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "i 42")

            let ping = try await run([
                "busctl", "--address=" + bus.address, "call", server.uniqueName.rawValue,
                BusTests.path.rawValue, "org.freedesktop.DBus.Peer", "Ping",
            ])
            #expect(ping.status == 0, "busctl: \(ping.stderr)")

            // Peer is answered at any path, exported or not, as libdbus and
            // GDBus answer it: the machine's ID as the bus itself gives it.
            let machine = try await run([
                "busctl", "--address=" + bus.address, "call", server.uniqueName.rawValue,
                "/nothing/here", "org.freedesktop.DBus.Peer", "GetMachineId",
            ])
            let busMachine = try await run([
                "busctl", "--address=" + bus.address, "call", "org.freedesktop.DBus",
                "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "GetMachineId",
            ])
            #expect(machine.status == 0, "busctl: \(machine.stderr)")
            #expect(machine.stdout.hasPrefix("s \"") && machine.stdout == busMachine.stdout, "\(machine.stdout) against the bus's \(busMachine.stdout)")
            let unknown = try await run([
                "busctl", "--address=" + bus.address, "call", server.uniqueName.rawValue,
                BusTests.path.rawValue, "org.freedesktop.DBus.Peer", "Pong",
            ])
            #expect(unknown.status != 0 && unknown.stderr.contains("no method Pong"), "busctl: \(unknown.stderr)")
            let withArguments = try await run([
                "busctl", "--address=" + bus.address, "call", server.uniqueName.rawValue,
                BusTests.path.rawValue, "org.freedesktop.DBus.Peer", "Ping", "s", "x",
            ])
            #expect(withArguments.status != 0 && withArguments.stderr.contains("Ping takes no arguments"), "busctl: \(withArguments.stderr)")

            let wrong = try await run([
                "busctl", "--address=" + bus.address, "call", server.uniqueName.rawValue,
                BusTests.path.rawValue, "org.example.Test", "Add", "s", "nope",
            ])
            #expect(wrong.status != 0)
            #expect(wrong.stderr.contains("Add takes arguments of type 'ii', got 's'"))
        }
    }
}
