@testable import DBus
import Dispatch
import Synchronization
import Testing
import TestSupport

/// `Connection.answerCallsOnLoop`: async method handlers run on the
/// connection's loop, and are answered however their awaits are woken.
@Suite(.timeLimit(.minutes(1)))
struct LoopExecutorTests {
    static let path: ObjectPath = "/org/example/Loop"
    static let interface: InterfaceName = "org.example.Loop"

    /// Methods that report whether each step of the handler ran on the
    /// server's loop queue: before an await and after it.
    static func methods(of server: Connection) -> ExportedInterface {
        @Sendable func onLoop() -> Bool { server.loop.isOnQueue }
        return ExportedInterface(
            interface,
            methods: [
                // Woken on the loop: the bus's reply is read there.
                ExportedMethod("CallOut", results: [Argument("before", .boolean), Argument("after", .boolean)], asyncHandler: { _ throws(DBusError) in
                    let before = onLoop()
                    _ = try await server.callBus("GetId")
                    return [.boolean(before), .boolean(onLoop())]
                }),
                // Woken on another thread.
                ExportedMethod("Elsewhere", results: [Argument("before", .boolean), Argument("after", .boolean)], asyncHandler: { _ throws(DBusError) in
                    let before = onLoop()
                    await withCheckedContinuation { continuation in
                        DispatchQueue.global().async { continuation.resume() }
                    }
                    return [.boolean(before), .boolean(onLoop())]
                }),
                // Woken by a timer.
                ExportedMethod("Sleep", results: [Argument("before", .boolean), Argument("after", .boolean)], asyncHandler: { _ throws(DBusError) in
                    let before = onLoop()
                    try? await Task.sleep(for: .milliseconds(2))
                    return [.boolean(before), .boolean(onLoop())]
                }),
            ])
    }

    @Test(arguments: [true, false])
    func handlersAreAnsweredAndRunWhereTheyShould(onTheLoop: Bool) async throws {
        try await withConnectedPeers { _, server, client in
            if onTheLoop { server.answerCallsOnLoop() }
            server.export([Self.methods(of: server)], at: Self.path)
            let results = try await withThrowingTaskGroup(of: [Bool].self) { group in
                for i in 0..<90 {
                    let member: MemberName = ["CallOut", "Elsewhere", "Sleep"][i % 3]
                    group.addTask {
                        let (before, after) = try await client.call(server.uniqueName, Self.path, Self.interface, member)
                            .decode(Bool.self, Bool.self)
                        return [before, after]
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 90)
            #expect(results.allSatisfy { $0 == [onTheLoop, onTheLoop] })
        }
    }
}
