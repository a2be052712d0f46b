import DBus
import Synchronization

/// A stand-in for the session's notification server on a private bus: it
/// owns `org.freedesktop.Notifications`, records every `Notify` call, says
/// the capabilities it was given, and can go silent (never answer `Notify`)
/// or invoke an action as a real server does (`ActivationToken`, then
/// `ActionInvoked`).
public final class FakeNotificationServer: Sendable {
    public let connection: Connection
    private let log = Log()
    private let silent: Bool

    private final class Log: Sendable {
        let notifications = Mutex<[Notification]>([])
    }

    /// One `Notify` call's arguments.
    public struct Notification: Sendable, Equatable {
        public let id: UInt32
        public let appName: String
        public let summary: String
        public let body: String
        public let actions: [String]
        public let hints: [String: Variant]
    }

    public static let objectPath: ObjectPath = "/org/freedesktop/Notifications"
    public static let interface: InterfaceName = "org.freedesktop.Notifications"

    /// The notifications received so far.
    public var received: [Notification] { log.notifications.withLock { $0 } }

    /// The notifications once there are `count`, or after five seconds.
    public func waitForNotifications(_ count: Int) async throws -> [Notification] {
        for _ in 0..<500 where received.count < count { try await Task.sleep(for: .milliseconds(10)) }
        return received
    }

    /// - Parameters:
    ///   - capabilities: what `GetCapabilities` answers (`actions`, `body-markup`, …).
    ///   - silent: never answer `Notify` (the call is recorded, and times out at the caller).
    public init(on bus: PrivateBus, capabilities: [String] = ["actions", "body", "body-markup"], silent: Bool = false) async throws {
        connection = try await bus.connect()
        self.silent = silent
        let log = log
        connection.export([ExportedInterface(Self.interface, methods: [
            ExportedMethod("GetCapabilities", results: [Argument("capabilities", .array(.string))]) { _ in
                [.array(.string, capabilities.map(Value.string))]
            },
            ExportedMethod(
                "Notify",
                arguments: [Argument("app_name", .string), Argument("replaces_id", .uint32), Argument("app_icon", .string),
                            Argument("summary", .string), Argument("body", .string), Argument("actions", .array(.string)),
                            Argument("hints", .dictionary(key: .string, value: .variant)), Argument("expire_timeout", .int32)],
                results: [Argument("id", .uint32)],
                asyncHandler: { call throws(DBusError) in
                    let (app, _, _, summary, body, actions, hints, _) = try call.arguments.decode(
                        String.self, UInt32.self, String.self, String.self, String.self, [String].self, [String: Variant].self, Int32.self)
                    let id = log.notifications.withLock { log in
                        let id = UInt32(log.count + 1)
                        log.append(Notification(id: id, appName: app, summary: summary, body: body, actions: actions, hints: hints))
                        return id
                    }
                    if silent { try? await Task.sleep(for: .seconds(3600)) }
                    return [.uint32(id)]
                }),
            ExportedMethod("CloseNotification", arguments: [Argument("id", .uint32)]) { _ in [] },
            ExportedMethod("GetServerInformation", results: [
                Argument("name", .string), Argument("vendor", .string), Argument("version", .string), Argument("spec_version", .string),
            ]) { _ in [.string("fake"), .string("openurld tests"), .string("1"), .string("1.2")] },
        ])], at: Self.objectPath)
        guard try await connection.requestName("org.freedesktop.Notifications") == .primaryOwner else {
            throw FixtureError("org.freedesktop.Notifications is already owned on this bus")
        }
    }

    /// What a server does when the person clicks an action: the activation
    /// token for the window to come, then the action.
    public func invoke(_ action: String, of id: UInt32, activationToken: String) throws {
        try connection.emit("ActivationToken", on: Self.interface, from: Self.objectPath, arguments: [.uint32(id), .string(activationToken)])
        try connection.emit("ActionInvoked", on: Self.interface, from: Self.objectPath, arguments: [.uint32(id), .string(action)])
    }

    deinit { connection.close() }
}
