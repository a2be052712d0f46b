import DBus
import Synchronization

/// A stand-in for the systemd user manager on a private bus: it owns
/// `org.freedesktop.systemd1`, records `StartTransientUnit` calls and serves
/// the manager's `Environment` property.
public final class FakeSystemdManager: Sendable {
    public let connection: Connection
    private let log = CallLog()

    private final class CallLog: Sendable {
        let calls = Mutex<[[Value]]>([])
    }

    /// The arguments of every `StartTransientUnit` call so far.
    public var transientUnits: [[Value]] { log.calls.withLock { $0 } }

    /// The scopes made so far, once there are `count` (a launch is answered
    /// before its scope is made), or after five seconds.
    public func waitForTransientUnits(_ count: Int) async throws -> [[Value]] {
        for _ in 0..<500 where transientUnits.count < count { try await Task.sleep(for: .milliseconds(10)) }
        return transientUnits
    }

    /// The string properties of each transient unit, e.g. its `Description`.
    public func unitProperties(named property: String) -> [String] {
        transientUnits.compactMap { call -> String? in
            guard case .array(_, let properties) = call[2] else { return nil }
            for case .structure(let fields) in properties where fields[0] == .string(property) {
                if case .variant(.string(let text)) = fields[1] { return text }
            }
            return nil
        }
    }

    public init(on bus: PrivateBus, environment: [String] = []) async throws {
        connection = try await bus.connect()
        let log = log
        connection.export([ExportedInterface("org.freedesktop.systemd1.Manager", methods: [
            ExportedMethod(
                "StartTransientUnit",
                arguments: [Argument("name", .string), Argument("mode", .string),
                            Argument("properties", .array(.structure([.string, .variant]))),
                            Argument("aux", .array(.structure([.string, .array(.structure([.string, .variant]))])))],
                results: [Argument("job", .objectPath)]
            ) { call in
                log.calls.withLock { $0.append(call.arguments) }
                return [.objectPath("/org/freedesktop/systemd1/job/1")]
            },
        ], properties: [
            ExportedProperty("Environment", type: .array(.string)) { .array(.string, environment.map(Value.string)) },
        ])], at: "/org/freedesktop/systemd1")
        guard try await connection.requestName("org.freedesktop.systemd1") == .primaryOwner else {
            throw FixtureError("org.freedesktop.systemd1 is already owned on this bus")
        }
    }

    deinit { connection.close() }
}
