import DBus
import DispatcherAPI

/// A stand-in for openurld on a private bus: it owns the dispatcher's name
/// and answers `OpenURLWithOptions` as the test says, so that a client's
/// handling of what openurld would never do can be driven.
public final class FakeDispatcher: Sendable {
    /// The stand-in's connection; closing it leaves the bus.
    public let connection: Connection

    /// Owns `DispatcherAPI.busName` on `bus`, answering each call with `answer`
    /// (results of the types `results` declares).
    public init(on bus: PrivateBus, results: [Argument]? = nil, _ answer: @escaping @Sendable (MethodCall) async throws(DBusError) -> [Value]) async throws {
        let dictionary = DBusType.dictionary(key: .string, value: .variant)
        connection = try await Connection.connect(to: bus.address)
        connection.export([ExportedInterface(DispatcherAPI.dispatcherInterface, methods: [
            ExportedMethod(DispatcherAPI.Member.openURLWithOptions,
                           arguments: [Argument("url", .string), Argument("options", dictionary)],
                           results: results ?? [Argument("accepted", .boolean), Argument("result", dictionary)],
                           asyncHandler: answer),
        ])], at: DispatcherAPI.objectPath)
        guard try await connection.requestName(DispatcherAPI.busName) == .primaryOwner else {
            connection.close()
            throw FixtureError("another connection owns \(DispatcherAPI.busName)")
        }
    }

    /// A stand-in that takes each call and never answers; `called` yields once per call.
    public static func neverAnswering(on bus: PrivateBus) async throws -> (FakeDispatcher, called: AsyncStream<Void>) {
        let (called, call) = AsyncStream.makeStream(of: Void.self)
        let fake = try await FakeDispatcher(on: bus) { _ in
            call.yield()
            try? await Task.sleep(for: .seconds(3600))
            return []
        }
        return (fake, called)
    }
}
