@testable import DBus
import Foundation
import Synchronization
import Testing
import TestSupport

/// Every call's reply is judged by who sent it (`ReplyAuthority`), on both
/// connection kinds and for every kind of destination: a third peer sweeping
/// reply serials never answers a call, and no peer but the bus can say that
/// nobody is there.
@Suite(.timeLimit(.minutes(1)))
struct ReplyAuthorityTests {
    static let name: BusName = "org.example.Slow"
    static let path: ObjectPath = "/slow"

    /// A server owning `name` whose `Wait` answers "genuine" once `go` is
    /// yielded, and says when it was asked.
    struct SlowServer {
        let connection: Connection
        let asked: AsyncStream<Void>
        let go: AsyncStream<Void>.Continuation

        static func start(on bus: PrivateBus, error: DBusError? = nil) async throws -> SlowServer {
            let connection = try await bus.connect()
            let (asked, askedContinuation) = AsyncStream<Void>.makeStream()
            let (go, goContinuation) = AsyncStream<Void>.makeStream()
            let gate = Mutex<AsyncStream<Void>?>(go)
            connection.export([ExportedInterface("org.example.Slow", methods: [
                ExportedMethod("Wait", results: [Argument("x", .string)], asyncHandler: { _ throws(DBusError) in
                    askedContinuation.yield()
                    if let go = gate.withLock({ $0 }) { for await _ in go { break } }
                    if let error { throw error }
                    return [.string("genuine")]
                }),
            ])], at: ReplyAuthorityTests.path)
            #expect(try await connection.requestName(ReplyAuthorityTests.name) == .primaryOwner)
            return SlowServer(connection: connection, asked: asked, go: goContinuation)
        }

        func waitUntilAsked() async { for await _ in asked { break } }
    }

    // MARK: The rule itself

    @Test(arguments: [
        // destination, sender, kind, error name, owners seen, verdict
        (":1.5", ":1.5", Message.Kind.methodReturn, nil, [], "accept"),
        (":1.5", ":1.6", .methodReturn, nil, [], "drop"),
        (":1.5", "org.freedesktop.DBus", .error, "org.freedesktop.DBus.Error.NoReply", [], "accept"),
        (":1.5", "org.freedesktop.DBus", .methodReturn, nil, [], "drop"),
        (":1.5", ":1.5", .error, "org.freedesktop.DBus.Error.ServiceUnknown", [], "failure"),
        (":1.5", ":1.5", .error, "org.freedesktop.DBus.Error.Spawn.ChildExited", [], "failure"),
        (":1.5", ":1.5", .error, "org.freedesktop.DBus.Error.InvalidArgs", [], "accept"),
        ("org.example.Slow", ":1.7", .methodReturn, nil, [], "drop"),
        ("org.example.Slow", ":1.7", .methodReturn, nil, [":1.7"], "accept"),
        ("org.example.Slow", ":1.8", .methodReturn, nil, [":1.7"], "drop"),
        ("org.example.Slow", ":1.8", .methodReturn, nil, [":1.7", ":1.8"], "accept"),
        ("org.example.Slow", ":1.7", .error, "org.freedesktop.DBus.Error.NameHasNoOwner", [":1.7"], "failure"),
        ("org.example.Slow", ":1.9", .error, "org.freedesktop.DBus.Error.ServiceUnknown", [":1.7"], "drop"),
        ("org.example.Slow", "org.freedesktop.DBus", .error, "org.freedesktop.DBus.Error.ServiceUnknown", [], "accept"),
        ("org.freedesktop.DBus", "org.freedesktop.DBus", .methodReturn, nil, [], "accept"),
        ("org.freedesktop.DBus", ":1.5", .methodReturn, nil, [], "drop"),
        ("org.freedesktop.DBus", ":1.5", .error, "org.freedesktop.DBus.Error.NameHasNoOwner", [], "drop"),
    ] as [(String, String, Message.Kind, String?, [String], String)])
    func aReplyCountsOnlyFromWhoWasAsked(
        destination: String, sender: String, kind: Message.Kind, error: String?, owners: [String], expected: String
    ) {
        var authority = ReplyAuthority(destination: BusName(trusted: destination))
        for owner in owners { authority.ownerSeen(owner) }
        let verdict = authority.verdict(sender: sender, kind: kind, errorName: error.map { ErrorName(trusted: $0) }) { "m" }
        let word = switch verdict {
        case .accept: "accept"
        case .drop: "drop"
        case .failure(let failure):
            failure.name == .failed ? "failure" : "failure with \(failure.name)"
        }
        #expect(word == expected)
    }

    /// The bus names the sender of everything it routes, and nothing is made
    /// locally (libdbus made its timeout's NoReply without one; the layer's
    /// deadline is no message): a reply without a sender counts for nothing.
    @Test func nothingWithoutASenderCounts() {
        let authority = ReplyAuthority(destination: "org.example.Slow")
        #expect(authority.verdict(sender: nil, kind: .error, errorName: .noReply) { "" } == .drop)
        #expect(authority.verdict(sender: nil, kind: .methodReturn, errorName: nil) { "" } == .drop)
    }

    // MARK: On the bus, each path that makes calls

    /// A private bus on which `org.openurld.Dispatcher1` is started by D-Bus activation (the built openurld).
    func withActivatableDaemon(_ body: (PrivateBus) async throws -> Void) async throws {
        let tree = try XDGTree()
        let services = tree.root + "/services"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        try """
            [D-BUS Service]
            Name=org.openurld.Dispatcher1
            Exec=\(Binaries.openurld) --idle-exit 5

            """.write(toFile: services + "/org.openurld.Dispatcher1.service", atomically: true, encoding: .utf8)
        try await withPrivateBus(serviceDirectories: [services], environment: tree.environment, body)
    }

    /// The daemon's version, asked by a blocking client.
    static func blockingVersion(at address: String) throws -> [Value] {
        let blocking = try BlockingConnection(address: address, timeout: .seconds(5))
        defer { blocking.close() }
        return try blocking.call(
            "org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.freedesktop.DBus.Properties", "Get",
            [.string("org.openurld.Dispatcher1"), .string("Version")])
    }

    @Test func asyncCallsToAWellKnownNameIgnoreForgeries() async throws {
        try await withPrivateBus { bus in
            let server = try await SlowServer.start(on: bus)
            let client = try await bus.connect()
            let forger = try await bus.connect()
            defer { [server.connection, client, forger].forEach { $0.close() } }
            let dropped = Mutex<[DroppedReply]>([])
            client.onDroppedReply { reply in dropped.withLock { $0.append(reply) } }
            let call = Task { try await client.call(Self.name, Self.path, "org.example.Slow", "Wait") }
            await server.waitUntilAsked()
            try forgeReplies(from: forger, to: client.uniqueName, serials: 1...300, strings: ["forged"])
            // A round trip from the forger through the client's bus queue: every forgery has arrived.
            _ = try await forger.owner(of: client.uniqueName)
            _ = try await client.owner(of: forger.uniqueName)
            server.go.yield()
            #expect(try await call.value == [.string("genuine")])
            #expect(client.forgedReplyCount >= 1)
            let first = try #require(dropped.withLock { $0.first })
            #expect(first.sender == forger.uniqueName && first.destination == Self.name && first.member == "Wait")
            #expect(dropped.withLock { $0.count } == 1, "one dropped reply is reported once")
        }
    }

    @Test func aForgedServiceUnknownIsNotTakenForAnAbsentService() async throws {
        try await withPrivateBus { bus in
            let server = try await SlowServer.start(on: bus)
            let client = try await bus.connect()
            let forger = try await bus.connect()
            defer { [server.connection, client, forger].forEach { $0.close() } }
            let call = Task { try await client.call(Self.name, Self.path, "org.example.Slow", "Wait") }
            await server.waitUntilAsked()
            try forgeReplies(
                from: forger, to: client.uniqueName, serials: 1...300, strings: ["nobody here"], errorName: .serviceUnknown)
            _ = try await forger.owner(of: client.uniqueName)
            _ = try await client.owner(of: forger.uniqueName)
            server.go.yield()
            #expect(try await call.value == [.string("genuine")])
        }
    }

    @Test func theOwnerItselfCannotSayNobodyIsThere() async throws {
        try await withPrivateBus { bus in
            let server = try await SlowServer.start(on: bus, error: DBusError(.serviceUnknown, "not me"))
            let client = try await bus.connect()
            defer { [server.connection, client].forEach { $0.close() } }
            server.go.yield()
            let error = await #expect(throws: DBusError.self) {
                try await client.call(Self.name, Self.path, "org.example.Slow", "Wait")
            }
            #expect(error?.name == .failed)
            #expect(error?.message.contains("only the bus may send") == true)
            // The bus's own ServiceUnknown still counts as such.
            let absent = await #expect(throws: DBusError.self) {
                try await client.call("org.example.Nobody", Self.path, "org.example.Slow", "Wait")
            }
            #expect(absent?.name == .serviceUnknown)
        }
    }

    @Test func blockingCallsIgnoreForgeriesToUniqueAndWellKnownNames() async throws {
        try await withPrivateBus { bus in
            let server = try await SlowServer.start(on: bus)
            let forger = try await bus.connect()
            defer { [server.connection, forger].forEach { $0.close() } }
            let address = bus.address
            let unique = server.connection.uniqueName
            for destination in [Self.name, unique] {
                let (named, namedContinuation) = AsyncStream<BusName>.makeStream()
                let call = Task.detached {
                    let client = try BlockingConnection(address: address, timeout: .seconds(5))
                    defer { client.close() }
                    namedContinuation.yield(client.uniqueName!)
                    let reply = try client.call(destination, Self.path, "org.example.Slow", "Wait", timeout: .seconds(20))
                    return (reply, client.droppedReplies)
                }
                var victim: BusName?
                for await name in named { victim = name; break }
                await server.waitUntilAsked()
                for errorName in [nil, ErrorName.serviceUnknown] {
                    try forgeReplies(from: forger, to: victim!, serials: 1...50, strings: ["forged"], errorName: errorName)
                }
                _ = try await forger.owner(of: victim!)
                server.go.yield()
                let (reply, dropped) = try await call.value
                #expect(reply == [.string("genuine")], "to \(destination)")
                #expect(dropped >= 1, "to \(destination)")
            }
        }
    }

    @Test func aCallThatActivatesItsDestinationIsAnsweredByTheNewOwner() async throws {
        try await withActivatableDaemon { bus in
            let client = try await bus.connect()
            defer { client.close() }
            #expect(try await client.owner(of: "org.openurld.Dispatcher1") == nil)
            let version = try await client.call(
                "org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.freedesktop.DBus.Properties", "Get",
                [.string("org.openurld.Dispatcher1"), .string("Version")])
            #expect(version.count == 1)
            #expect(client.forgedReplyCount == 0)
            #expect(try await client.owner(of: "org.openurld.Dispatcher1") != nil)
            // A blocking client, once the name is owned: its GetNameOwner learns the owner.
            let address = bus.address
            let again = try await Task.detached {
                try Self.blockingVersion(at: address)
            }.value
            #expect(again == version)
        }
    }

    @Test func aBlockingCallThatActivatesItsDestinationIsAnsweredByTheNewOwner() async throws {
        try await withActivatableDaemon { bus in
            let address = bus.address
            let version = try await Task.detached {
                try Self.blockingVersion(at: address)
            }.value
            #expect(version.count == 1)
        }
    }

    // MARK: Calls the bus still counts

    @Test func callsGivenUpOnCountUntilTheBusOrThePeerAnswers() async throws {
        try await withPrivateBus { bus in
            let server = try await SlowServer.start(on: bus)
            let client = try await bus.connect()
            defer { [server.connection, client].forEach { $0.close() } }
            let peer = server.connection.uniqueName
            for _ in 0..<2 {
                await #expect(throws: DBusError.self) {
                    try await client.call(peer, Self.path, "org.example.Slow", "Wait", timeout: .milliseconds(100))
                }
            }
            #expect(client.callsAwaitingAnswer(from: peer) == 2, "given up on, still counted by the bus")
            // A third is refused before it is sent.
            let refused = await #expect(throws: DBusError.self) {
                try await client.call(peer, Self.path, "org.example.Slow", "Wait", timeout: .seconds(5), awaitingAtMost: 2)
            }
            #expect(refused?.name == .limitsExceeded)
            #expect(client.callsAwaitingAnswer(from: peer) == 2, "a call refused before it is sent is not counted")
            // The late answers arrive: nobody waits for them, but they end the count.
            // The server's handlers resume on their own tasks, so a Ping sent
            // after `finish` may overtake their replies: each round trip is a
            // chance for them to have arrived, for at most 5 s.
            server.go.finish()
            let clock = ContinuousClock()
            let end = clock.now + .seconds(5)
            while client.callsAwaitingAnswer(from: peer) > 0, clock.now < end {
                _ = try await server.connection.call(client.uniqueName, "/", "org.freedesktop.DBus.Peer", "Ping")
                _ = try await client.call(peer, "/", "org.freedesktop.DBus.Peer", "Ping")
            }
            #expect(client.callsAwaitingAnswer(from: peer) == 0)
        }
    }

    @Test func aPeerThatLeavesEndsTheCount() async throws {
        try await withPrivateBus { bus in
            let server = try await SlowServer.start(on: bus)
            let client = try await bus.connect()
            defer { client.close() }
            let peer = server.connection.uniqueName
            await #expect(throws: DBusError.self) {
                try await client.call(peer, Self.path, "org.example.Slow", "Wait", timeout: .milliseconds(100))
            }
            #expect(client.callsAwaitingAnswer(from: peer) == 1)
            let watcher = try await bus.connect()
            defer { watcher.close() }
            server.connection.close()
            // The bus's NoReply for the abandoned call precedes what it says after it.
            while try await watcher.owner(of: peer) != nil { try await Task.sleep(for: .milliseconds(5)) }
            _ = try await client.owner(of: watcher.uniqueName)
            #expect(client.callsAwaitingAnswer(from: peer) == 0)
        }
    }
}
