import DBus
import Routing

extension DispatcherAPI {
    /// What `OpenURLWithOptions` answers: `accepted`, and the `a{sv}` result
    /// (`outcome`, `url`, `handler`, `rule`, `application`, `message`). One type
    /// for the daemon that writes it and every client that reads it.
    public struct OpenResult: Sendable, Equatable {
        public let accepted: Bool
        /// `nil` when the daemon sent an outcome this client does not know.
        public let outcome: Outcome?
        /// The URL after rewrites.
        public let url: String
        /// The run-time handler that decided, if one did.
        public let handler: UInt32?
        /// The rule that decided, if one did.
        public let rule: String?
        /// The application started, if one was.
        public let application: String?
        /// Why, when the URL was not opened.
        public let message: String?

        public init(accepted: Bool, outcome: Outcome?, url: String, handler: UInt32? = nil, rule: String? = nil,
                    application: String? = nil, message: String? = nil) {
            self.accepted = accepted
            self.outcome = outcome
            self.url = url
            self.handler = handler
            self.rule = rule
            self.application = application
            self.message = message
        }

        /// The method's arguments for opening `url` with `activationToken`,
        /// asking the person first when `ask` is set.
        /// - Parameter notifyFailure: ask the daemon to show a failure as a desktop notification.
        public static func request(_ url: String, activationToken: String?, ask: Bool = false, notifyFailure: Bool = false) -> [Value] {
            var options: [String: Variant] = [:]
            if let activationToken, !activationToken.isEmpty { options[OptionKey.activationToken] = Variant(activationToken) }
            if ask { options[OptionKey.ask] = Variant(true) }
            if notifyFailure { options[OptionKey.notifyFailure] = Variant(true) }
            return [.string(url), options.dbusValue]
        }

        /// The `a{sv}` result, as the daemon sends it.
        public var dictionary: [String: Variant] {
            var result: [String: Variant] = ["url": Variant(url)]
            if let outcome { result["outcome"] = Variant(outcome.rawValue) }
            if let handler { result["handler"] = Variant(handler) }
            if let rule { result[OptionKey.rule] = Variant(rule) }
            if let application { result["application"] = Variant(application) }
            if let message { result["message"] = Variant(message) }
            return result
        }

        /// Reads the `(ba{sv})` reply to a request for `requested`.
        public init(reply: [Value], requested: String) throws(DBusError) {
            let (accepted, result) = try reply.decode(Bool.self, [String: Variant].self)
            self.init(
                accepted: accepted, outcome: result["outcome"]?.get(String.self).flatMap(Outcome.init(rawValue:)),
                url: result["url"]?.get(String.self) ?? requested, handler: result["handler"]?.get(UInt32.self),
                rule: result[OptionKey.rule]?.get(String.self), application: result["application"]?.get(String.self),
                message: result["message"]?.get(String.self))
        }
    }
}
