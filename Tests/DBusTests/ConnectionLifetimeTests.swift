@testable import DBus
import Dispatch
import Glibc
import Testing
import TestSupport

/// An open connection keeps itself alive (its loop's handlers hold it: it
/// serves its objects even when nobody holds it); once it has closed, for
/// any reason, nothing of the DBus module may hold it any more, or every
/// closed connection would keep its loop, its buffers and its objects.
/// (The loop lets go of a connection on its own queue once the close has
/// run, hence `eventually`.)
@Suite struct ConnectionLifetimeTests {
    @Test func aConnectionClosedByItsUserIsFreed() async throws {
        try await withPrivateBus { bus in
            weak var held: Connection?
            do {
                let connection = try await bus.connect()
                held = connection
                // Something of each kind the connection keeps, each holding
                // the connection as its users' closures do: a disconnect
                // handler, a timer, a subscription, an exported method, the
                // handler of dropped replies.
                connection.onDisconnect { _ in _ = connection }
                connection.run(at: .now() + .seconds(60)) { _ = connection }
                let subscription = try await connection.subscribe(to: MatchRule(interface: "org.example.Never", member: "Happens")) { _ in
                    _ = connection
                }
                let ping = ExportedMethod("Ping") { _ throws(DBusError) in _ = connection; return [] }
                connection.export([ExportedInterface("org.example.Lifetime", methods: [ping])], at: "/org/example/Lifetime")
                connection.onDroppedReply { _ in _ = connection }
                connection.close()
                _ = subscription
            }
            #expect(try await eventually { held == nil })
        }
    }

    @Test func aConnectionTheBusDroppedIsFreed() async throws {
        try await withPrivateBus { bus in
            weak var held: Connection?
            do {
                let connection = try await bus.connect()
                held = connection
                let (closed, closing) = AsyncStream<Void>.makeStream()
                connection.onDisconnect { _ in closing.yield() }
                // The bus goes away (reaped when the test's bus is stopped).
                kill(bus.pid, SIGKILL)
                for await _ in closed { break }
            }
            #expect(try await eventually { held == nil })
        }
    }

    /// An open connection nobody holds stays open and alive: the cycle is deliberate.
    @Test func anOpenConnectionNobodyHoldsStaysAlive() async throws {
        try await withPrivateBus { bus in
            weak var held: Connection?
            do { held = try await bus.connect() }
            #expect(held != nil)
            held?.close()
            #expect(try await eventually { held == nil })
        }
    }
}
