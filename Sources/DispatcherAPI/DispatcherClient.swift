import DBus
import Routing

/// A typed client of `org.openurld.Dispatcher1`, without Foundation, for the
/// CLI and the `OpenURL` library.
public struct DispatcherClient: Sendable {
    /// The bus connection the calls go through.
    public let connection: Connection
    /// The per-call timeout; the daemon answers within its walk deadline
    /// (20 s). Opening a URL waits longer, `DispatcherAPI.longestWalk`: a rule
    /// may ask the person, who has minutes.
    public var timeout: Duration = .seconds(25)

    /// A client calling the dispatcher over `connection` (starting it by D-Bus activation when it is installed).
    public init(connection: Connection) { self.connection = connection }

    /// Opens a URL through the dispatcher; with `ask`, the chooser is shown first.
    /// - Throws: `InvalidArgs` for an invalid URL; bus errors when the daemon is unreachable.
    public func open(_ url: String, activationToken: String? = nil, ask: Bool = false) async throws(DBusError) -> OpenURLOutcome {
        let reply = try await call(
            DispatcherAPI.Member.openURLWithOptions, DispatcherAPI.openURLArguments(url, activationToken: activationToken, ask: ask),
            timeout: DispatcherAPI.longestWalk)
        return try OpenURLOutcome(reply: reply, requested: url)
    }

    /// A registered handler, as `ListHandlers` and `Explain` describe it.
    public typealias HandlerInfo = DispatcherAPI.HandlerInfo

    /// The registered handlers, as `ListHandlers` lists them.
    public func handlers() async throws(DBusError) -> [HandlerInfo] {
        try await call(DispatcherAPI.Member.listHandlers).decode([[String: Variant]].self).map(HandlerInfo.init(listed:))
    }

    /// One step of `Explain`'s dry run: a run-time handler or a rule.
    public typealias ExplainStep = DispatcherAPI.ExplainStep

    /// A rule, as `ListRules` and `Explain` describe it.
    public typealias RuleInfo = DispatcherAPI.RuleInfo

    /// The steps a walk for `url` would take, in order, and the fallback application ("" if none).
    public func explain(_ url: String) async throws(DBusError) -> (steps: [ExplainStep], application: String) {
        let (steps, application) = try await call(DispatcherAPI.Member.explain, [.string(url)]).decode([[String: Variant]].self, String.self)
        return (steps.map(ExplainStep.init(listed:)), application)
    }

    /// The links in `text` (`kinds`: only these; `nil`: all; `region`: the
    /// ISO 3166 code national phone numbers are read in).
    public func detectLinks(in text: String, kinds: [String]? = nil, region: String? = nil) async throws(DBusError) -> [DetectedLink] {
        var options: [String: Variant] = [:]
        if let kinds { options[DispatcherAPI.OptionKey.kinds] = Variant(kinds) }
        if let region { options[DispatcherAPI.OptionKey.region] = Variant(region) }
        let reply = try await call(DispatcherAPI.Member.detectLinks, [.string(text), options.dbusValue])
        let unexpected = DBusError.invalidArgs("DetectLinks replied with '\(reply.signature)' instead of 'a(uuss)'")
        guard case .array(_, let items)? = reply.first, reply.count == 1 else { throw unexpected }
        var links: [DetectedLink] = []
        for item in items {
            guard let link = DetectedLink(item) else { throw unexpected }
            links.append(link)
        }
        return links
    }

    /// The daemon's rules and the problems found loading them.
    public func rules() async throws(DBusError) -> (rules: [RuleInfo], problems: [String]) {
        let (rules, problems) = try await call(DispatcherAPI.Member.listRules).decode([[String: Variant]].self, [String].self)
        return (rules.map(RuleInfo.init), problems)
    }

    /// The daemon's version (its `Version` property).
    public func version() async throws(DBusError) -> String {
        let reply = try await connection.call(
            DispatcherAPI.busName, DispatcherAPI.objectPath, .properties, "Get",
            [.string(DispatcherAPI.dispatcherInterface.rawValue), .string(DispatcherAPI.versionProperty.rawValue)], timeout: timeout)
        return try reply.decode(Variant.self).get(String.self) ?? ""
    }

    func call(_ member: MemberName, _ arguments: [Value] = [], timeout: Duration? = nil) async throws(DBusError) -> [Value] {
        try await connection.call(
            DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.dispatcherInterface, member, arguments,
            timeout: timeout ?? self.timeout)
    }

    /// Whether an error means "no dispatcher to talk to" rather than a refusal.
    /// Says, for people, why the dispatcher could not be reached, without
    /// the bus's own wording ("was not provided by any .service files").
    public static func unreachableReason(_ error: DBusError) -> String {
        switch error.name {
        case .serviceUnknown:
            return "openurld is not running on this session bus, and the bus cannot start it (its D-Bus service file, "
                + "\(DispatcherAPI.busName).service, is not installed)"
        case .nameHasNoOwner: return "openurld is not running on this session bus"
        case .noReply: return "openurld did not answer in time"
        case .disconnected: return "the session bus connection closed"
        case ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ChildExited"),
             ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ExecFailed"),
             ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ServiceNotFound"),
             ErrorName(trusted: "org.freedesktop.DBus.Error.FileNotFound"):
            return "the session bus could not start openurld (\(error.message))"
        default: return error.message
        }
    }

    /// Whether `error` means that no dispatcher could be reached or started
    /// (as opposed to a dispatcher that answered with an error).
    public static func isUnreachable(_ error: DBusError) -> Bool {
        [ErrorName.serviceUnknown, .nameHasNoOwner, .noReply, .disconnected, ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ChildExited"),
         ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ExecFailed"), ErrorName(trusted: "org.freedesktop.DBus.Error.Spawn.ServiceNotFound"),
         ErrorName(trusted: "org.freedesktop.DBus.Error.FileNotFound")].contains(error.name)
    }
}
