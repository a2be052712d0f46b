import DBus
import DispatcherAPI
import Synchronization
import Testing
import TestSupport

/// Replies the bus would refuse, and the registrations that would make them
/// (issue 15, item 6).
@Suite(.timeLimit(.minutes(2)))
struct MessageSizeTests {
    static let samples: [[Value]] = [
        [], [.byte(1)], [.byte(1), .uint64(2), .byte(3), .double(4)], [.string(""), .string(String(repeating: "é", count: 999))],
        [.array(.uint64, (0..<100).map { .uint64($0) })], [.array(.string, [])],
        [["a": Variant(UInt32(1)), "bb": Variant(["x", "yy"]), "c": Variant(Int64(3))].dbusValue],
        [.structure([.byte(1), .int64(2), .variant(.structure([.boolean(true), .string("s")]))]), .objectPath("/a/b")],
        [.array(.dictionary(key: .string, value: .variant), (0..<20).map { [String: Variant]([("k\($0)", Variant(Int32($0)))], uniquingKeysWith: { $1 }).dbusValue })],
    ]

    @Test(arguments: samples)
    func theSizeBoundIsNeverBelowTheEncodedSize(_ values: [Value]) throws {
        let empty = try Message.methodCall(destination: "org.example.X", path: "/", interface: "org.example.X", member: "M")
        let full = try Message.methodCall(destination: "org.example.X", path: "/", interface: "org.example.X", member: "M", arguments: values)
        // The two differ by the body and the header's signature field (code,
        // variant type, the signature itself, padding: at most 12 + its length).
        let body = full.marshal().count - empty.marshal().count - (12 + values.signature.description.utf8.count)
        #expect(values.reduce(0) { $0 + $1.wireSizeUpperBound } >= body)
    }

    @Test func aReplyTooLargeForTheBusIsAnErrorAndTheConnectionStays() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let client = try await bus.connect()
            defer { [server, client].forEach { $0.close() } }
            server.export([ExportedInterface("org.example.Big", methods: [
                ExportedMethod("Huge", results: [Argument("x", .string)]) { _ in [.string(String(repeating: "x", count: 40 << 20))] },
                ExportedMethod("Small", results: [Argument("x", .string)]) { _ in [.string("ok")] },
            ])], at: "/big")
            let error = await #expect(throws: DBusError.self) {
                _ = try await client.call(server.uniqueName, "/big", "org.example.Big", "Huge")
            }
            #expect(error?.name == .limitsExceeded, "\(String(describing: error))")
            #expect(try await client.call(server.uniqueName, "/big", "org.example.Big", "Small") == [.string("ok")])
            #expect(server.isConnected)
        }
    }

    @Test func specsAtEveryMaximumCannotOutgrowAListHandlersReply() async throws {
        try await DaemonHarness.with { d in
            let first = try await d.bus.connect()
            let second = try await d.bus.connect()
            defer { [first, second].forEach { $0.close() } }
            let label = String(repeating: "a", count: 61)
            let hosts = (0..<256).map { "h\($0).\(label).\(label).\(label)".prefix(253).description }
            let paths = (0..<256).map { "/\($0)/" + String(repeating: "p", count: 1000) }
            let huge: [String: Variant] = [
                "schemes": Variant(["https"]), "hosts": Variant(hosts), "paths": Variant(paths),
                "name": Variant(String(repeating: "n", count: 256)),
            ]
            var accepted = 0, refused = 0
            for connection in [first, second] {
                for index in 0..<8 {
                    do {
                        try await d.register(connection, path: try ObjectPath("/h\(index)"), huge) { _, _ in answer("systemAction") }
                        accepted += 1
                    } catch let error as DBusError {
                        #expect(error.name == .limitsExceeded, "\(error)")
                        refused += 1
                    }
                }
            }
            // 1 MiB of spec text per connection: three such specs each.
            #expect(accepted == 6 && refused == 10, "\(accepted) accepted, \(refused) refused")
            let listed = try await d.handlers(first)
            #expect(listed.count == accepted)
            #expect(d.daemon.isConnected)
            // A small spec still fits for a newcomer.
            let third = try await d.bus.connect()
            defer { third.close() }
            try await d.register(third, spec(["https"], hosts: ["example.com"])) { _, _ in answer("systemAction") }
        }
    }
}
