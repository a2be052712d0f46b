@testable import DBus
import Foundation
import Synchronization
import Testing
import TestSupport

/// A call that may not start its destination (`autoStart: false`), to a name
/// the bus said nobody owns, is answered `NameHasNoOwner` by the connection
/// itself, as the bus would answer it; until a new owner appears.
@Suite(.timeLimit(.minutes(1)))
struct UnownedNameTests {
    static let name: BusName = "org.example.Unowned"

    static func ping(_ connection: Connection, autoStart: Bool) async -> DBusError? {
        do {
            _ = try await connection.call(name, "/", "org.freedesktop.DBus.Peer", "Ping", timeout: .seconds(10), autoStart: autoStart)
            return nil
        } catch { return error }
    }

    /// `dbus-monitor` on the bus, for every `Ping`: what the bus received.
    final class Monitor {
        private let process = Process()
        private let output = Collected()

        final class Collected: Sendable {
            let text = Mutex("")
        }

        init(_ bus: PrivateBus) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
            process.arguments = ["--address", bus.address, "interface='org.freedesktop.DBus.Peer'"]
            let pipe = Pipe()
            process.standardOutput = pipe
            pipe.fileHandleForReading.readabilityHandler = { [output] handle in
                let text = String(decoding: handle.availableData, as: UTF8.self)
                output.text.withLock { $0 += text }
            }
            try process.run()
        }

        var text: String { output.text.withLock { $0 } }

        /// The pings to the name the bus received.
        var pings: Int { text.components(separatedBy: "\n").filter { $0.contains("destination=\(UnownedNameTests.name)") && $0.hasSuffix("member=Ping") }.count }

        deinit { process.terminate() }
    }

    @Test func aCallThatMayNotStartAnUnownedNameIsAnsweredWithoutTheBus() async throws {
        try await withPrivateBus { bus in
            let client = try await bus.connect()
            // The first is the bus's answer, and teaches the connection that nobody owns the name.
            let fromTheBus = await Self.ping(client, autoStart: false)
            #expect(fromTheBus?.name == .nameHasNoOwner)
            let monitor = try Monitor(bus)
            // A monitor is told it lost its unique name once it monitors.
            #expect(try await eventually { monitor.text.contains("member=NameLost") })
            let answeredHere = await Self.ping(client, autoStart: false)
            #expect(answeredHere?.name == fromTheBus?.name)
            // A call that may start the name still goes to the bus, which may
            // activate it; as the bus reads the client's messages in order,
            // once the monitor shows it, it would show the one before.
            let mayStart = await Self.ping(client, autoStart: true)
            #expect(mayStart?.name == .serviceUnknown)
            #expect(try await eventually { monitor.pings >= 1 })
            #expect(monitor.pings == 1, "only the call that may start the name reached the bus: \(monitor.text)")
            // Once somebody owns the name, calls reach it again (as soon as
            // its NameOwnerChanged has reached the client).
            let owner = try await bus.connect()
            #expect(try await owner.requestName(Self.name) == .primaryOwner)
            let clock = ContinuousClock()
            let end = clock.now + .seconds(10)
            var reply = await Self.ping(client, autoStart: false)
            while reply?.name == .nameHasNoOwner, clock.now < end {
                try await Task.sleep(for: .milliseconds(5))
                reply = await Self.ping(client, autoStart: false)
            }
            #expect(reply == nil, "the new owner answered Ping: \(String(describing: reply))")
        }
    }

    /// Only the bus says who owns a name: a peer's forged `NameOwnerChanged`,
    /// sent straight to the client, cannot make it answer calls to an owned
    /// name itself.
    @Test func aForgedOwnerChangeIsIgnored() async throws {
        try await withPrivateBus { bus in
            let client = try await bus.connect()
            let owner = try await bus.connect()
            let forger = try await bus.connect()
            #expect(try await owner.requestName(Self.name) == .primaryOwner)
            #expect(await Self.ping(client, autoStart: false) == nil, "the owner answers")
            let forged = Message(
                header: MessageHeader(kind: .signal, serial: 0, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                      member: "NameOwnerChanged", destination: client.uniqueName),
                values: [.string(Self.name.rawValue), .string(owner.uniqueName.rawValue), .string("")])
            forger.send(forged)
            // The bus passes on the forger's messages in order, and the
            // client reads them in order: once it answers the forger's Ping,
            // it has read the forged signal.
            _ = try await forger.call(client.uniqueName, "/", "org.freedesktop.DBus.Peer", "Ping")
            #expect(await Self.ping(client, autoStart: false) == nil, "the owner still answers")
        }
    }
}
