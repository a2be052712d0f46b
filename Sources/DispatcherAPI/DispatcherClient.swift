import DBus

/// A typed client of `org.openurld.Dispatcher1`, without Foundation, for the
/// CLI and the `OpenURL` library.
public struct DispatcherClient: Sendable {
    public let connection: Connection
    /// The per-call timeout; the daemon answers within its walk deadline (20 s).
    public var timeout: Duration = .seconds(25)

    public init(connection: Connection) { self.connection = connection }

    /// What `OpenURLWithOptions` reported.
    public struct OpenResult: Sendable, Equatable {
        public let accepted: Bool
        public let outcome: Outcome?
        public let url: String
        public let handler: UInt32?
        public let application: String?
        public let message: String?
    }

    /// Opens a URL through the dispatcher.
    /// - Throws: `InvalidArgs` for an invalid URL; bus errors when the daemon is unreachable.
    public func open(_ url: String, activationToken: String? = nil) async throws(DBusError) -> OpenResult {
        var options: [String: Variant] = [:]
        if let activationToken, !activationToken.isEmpty { options["activation-token"] = Variant(activationToken) }
        let (accepted, result) = try await call("OpenURLWithOptions", [.string(url), options.dbusValue])
            .decode(Bool.self, [String: Variant].self)
        return OpenResult(
            accepted: accepted, outcome: result["outcome"]?.get(String.self).flatMap(Outcome.init(rawValue:)),
            url: result["url"]?.get(String.self) ?? url, handler: result["handler"]?.get(UInt32.self),
            application: result["application"]?.get(String.self), message: result["message"]?.get(String.self))
    }

    /// A registered handler, as `ListHandlers` and `Explain` describe it.
    public struct HandlerInfo: Sendable, Equatable {
        public let id: UInt32
        public let name: String
        public let owner: String
        public let schemes: [String]
        public let hosts: [String]
        public let paths: [String]
        public let priority: Int32
        public let scope: String

        init(_ entry: [String: Variant]) {
            id = entry["id"]?.get(UInt32.self) ?? 0
            name = entry["name"]?.get(String.self) ?? ""
            owner = entry["owner"]?.get(String.self) ?? ""
            schemes = entry["schemes"]?.get([String].self) ?? []
            hosts = entry["hosts"]?.get([String].self) ?? []
            paths = entry["paths"]?.get([String].self) ?? []
            priority = entry["priority"]?.get(Int32.self) ?? 0
            scope = entry["scope"]?.get(String.self) ?? ""
        }
    }

    public func handlers() async throws(DBusError) -> [HandlerInfo] {
        try await call("ListHandlers").decode([[String: Variant]].self).map(HandlerInfo.init)
    }

    /// The handlers that would be asked about `url`, in order, and the fallback application ("" if none).
    public func explain(_ url: String) async throws(DBusError) -> (handlers: [HandlerInfo], application: String) {
        let (handlers, application) = try await call("Explain", [.string(url)]).decode([[String: Variant]].self, String.self)
        return (handlers.map(HandlerInfo.init), application)
    }

    public func version() async throws(DBusError) -> String {
        let reply = try await connection.call(
            DispatcherAPI.busName, DispatcherAPI.objectPath, "org.freedesktop.DBus.Properties", "Get",
            [.string(DispatcherAPI.dispatcherInterface.rawValue), .string("Version")], timeout: timeout)
        return try reply.decode(Variant.self).get(String.self) ?? ""
    }

    func call(_ member: MemberName, _ arguments: [Value] = []) async throws(DBusError) -> [Value] {
        try await connection.call(
            DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.dispatcherInterface, member, arguments,
            timeout: timeout)
    }

    /// Whether an error means "no dispatcher to talk to" rather than a refusal.
    public static func isUnreachable(_ error: DBusError) -> Bool {
        [ErrorName.serviceUnknown, .nameHasNoOwner, .noReply, .disconnected, ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ChildExited"),
         ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ExecFailed"), ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ServiceNotFound"),
         ErrorName(trusted: "org.freedesktop.DBus.Error.FileNotFound")].contains(error.name)
    }
}
