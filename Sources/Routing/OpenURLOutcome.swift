/// Everything the dispatcher reports about opening a URL: whether it was
/// accepted, the outcome, and who decided and why. One value for the daemon
/// that writes it into `OpenURLWithOptions`' reply, the CLI and the `OpenURL`
/// library that read it.
public struct OpenURLOutcome: Sendable, Equatable {
    /// Whether the URL was accepted (handled, or an application was started).
    public let accepted: Bool
    /// `nil` when the daemon sent an outcome this client does not know.
    public let outcome: Outcome?
    /// The URL after rewrites by handlers and rules.
    public let finalURL: String
    /// The id of the run-time handler that decided, when one did.
    public let handler: UInt32?
    /// The name of the rule that decided, when one did.
    public let rule: String?
    /// The desktop-file ID started, when one was.
    public let application: String?
    /// Why it was not opened, for people.
    public let message: String?

    /// A report of `outcome` for `finalURL`; `accepted` as the outcome says, unless given.
    public init(
        accepted: Bool? = nil, outcome: Outcome?, finalURL: String, handler: UInt32? = nil, rule: String? = nil,
        application: String? = nil, message: String? = nil
    ) {
        self.accepted = accepted ?? outcome?.isAccepted ?? false
        self.outcome = outcome
        self.finalURL = finalURL
        self.handler = handler
        self.rule = rule
        self.application = application
        self.message = message
    }
}
