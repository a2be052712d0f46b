import DBus
import Routing

extension DispatcherAPI {
    /// `OpenURLWithOptions`' arguments for opening `url` with `activationToken`,
    /// asking the person first when `ask` is set.
    /// - Parameter notifyFailure: ask the daemon to show a failure as a desktop notification.
    public static func openURLArguments(_ url: String, activationToken: String?, ask: Bool = false, notifyFailure: Bool = false) -> [Value] {
        var options: [String: Variant] = [:]
        if let activationToken, !activationToken.isEmpty { options[OptionKey.activationToken] = Variant(activationToken) }
        if ask { options[OptionKey.ask] = Variant(true) }
        if notifyFailure { options[OptionKey.notifyFailure] = Variant(true) }
        return [.string(url), options.dbusValue]
    }
}

extension OpenURLOutcome {
    /// The `a{sv}` result of `OpenURLWithOptions` (`outcome`, `url`, `handler`,
    /// `rule`, `application`, `message`), as the daemon sends it.
    public var dictionary: [String: Variant] {
        typealias Key = DispatcherAPI.ResultKey
        var result: [String: Variant] = [Key.url: Variant(finalURL)]
        if let outcome { result[Key.outcome] = Variant(outcome.rawValue) }
        if let handler { result[Key.handler] = Variant(handler) }
        if let rule { result[DispatcherAPI.OptionKey.rule] = Variant(rule) }
        if let application { result[Key.application] = Variant(application) }
        if let message { result[Key.message] = Variant(message) }
        return result
    }

    /// The `(ba{sv})` reply.
    public var reply: [Value] { [.boolean(accepted), dictionary.dbusValue] }

    /// Reads the `(ba{sv})` reply to a request for `requested`.
    public init(reply: [Value], requested: String) throws(DBusError) {
        typealias Key = DispatcherAPI.ResultKey
        let (accepted, result) = try reply.decode(Bool.self, [String: Variant].self)
        self.init(
            accepted: accepted, outcome: result[Key.outcome]?.get(String.self).flatMap(Outcome.init(rawValue:)),
            finalURL: result[Key.url]?.get(String.self) ?? requested, handler: result[Key.handler]?.get(UInt32.self),
            rule: result[DispatcherAPI.OptionKey.rule]?.get(String.self), application: result[Key.application]?.get(String.self),
            message: result[Key.message]?.get(String.self))
    }
}
