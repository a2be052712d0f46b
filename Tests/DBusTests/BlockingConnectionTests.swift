import DBus
import Testing
import TestSupport

/// The one-shot client connection: blocking calls with a timeout, against
/// an asynchronous Swift peer on a private bus.
@Suite(.timeLimit(.minutes(1)))
struct BlockingConnectionTests {
    @Test func callsAnswersErrorsAndTimeouts() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            defer { server.close() }
            server.export([BusTests.testInterface()], at: BusTests.path)
            let address = bus.address
            let name = server.uniqueName
            // Blocking calls, off the cooperative pool.
            try await Task.detached {
                let client = try BlockingConnection(address: address, timeout: .seconds(5))
                defer { client.close() }
                let sum = try client.call(name, BusTests.path, BusTests.interface, "Add", [.int32(2), .int32(40)])
                #expect(sum == [.int32(42)])
                let echoed = try client.call(name, BusTests.path, BusTests.interface, "Echo", [.variant(.string("é \u{1F600}"))])
                #expect(echoed == [.variant(.string("é \u{1F600}"))])
                #expect(throws: DBusError(ErrorName(trusted: "org.example.Error.Nope"), "no, because of reasons")) {
                    try client.call(name, BusTests.path, BusTests.interface, "Fail")
                }
                let clock = ContinuousClock()
                let started = clock.now
                let timedOut = #expect(throws: DBusError.self) {
                    try client.call(name, BusTests.path, BusTests.interface, "Never", timeout: .milliseconds(200))
                }
                #expect(timedOut?.name == .noReply)
                #expect(clock.now - started < .seconds(5))
                let unknown = #expect(throws: DBusError.self) {
                    try client.call("org.example.Nobody", BusTests.path, BusTests.interface, "Add", [.int32(1), .int32(1)])
                }
                #expect(unknown?.name == .serviceUnknown)
                client.close()
                #expect(throws: DBusError.self) { try client.call(name, BusTests.path, BusTests.interface, "Add", [.int32(1), .int32(1)]) }
            }.value
            #expect(throws: DBusError.self) { try BlockingConnection(address: "unix:path=/nonexistent/bus") }
        }
    }
}
