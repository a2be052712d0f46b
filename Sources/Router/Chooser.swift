import Routing
import XDG

/// What the person answered.
public enum Choice: Sendable, Equatable {
    /// Open `url` (possibly edited) with `target`.
    case target(Target, url: ValidatedURL, activationToken: String?, remember: RememberScope)
    /// Use the default: the walk goes on as if nobody had asked.
    case useDefault
    /// Cancelled: the URL is not opened.
    case cancelled
    /// No chooser could be asked (none installed, or the walk has no way to
    /// ask): like a failing rule, the step passes.
    case unavailable(String)
    /// The chooser was asked but its answer never came (it crashed, the bus
    /// went away, it answered nonsense): the walk ends undecided and nothing
    /// is opened.
    case lost(String)
    /// Nobody answered within `after`, the chooser's time: whether the
    /// chooser closed its window and said so or its answer never came, one
    /// outcome (undecided, nothing opened) and one message.
    case unanswered(after: Duration)

    /// What the walk reports for `.unanswered(after:)`.
    public static func unansweredMessage(after wait: Duration) -> String {
        "nobody answered the chooser within \(wait.components.seconds) s"
    }
}

/// A way to ask the person where a URL should go.
public protocol Chooser: Sendable {
    /// Asks, waiting at most `timeout`.
    func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice
}

/// No chooser: every `Ask=` passes. For walks that cannot ask anyone.
public struct NoChooser: Chooser {
    /// No chooser.
    public init() {}
    /// Answers at once that there is no chooser.
    public func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice {
        .unavailable("no chooser is set up")
    }
}

/// An answer to remember, as the walk reports it: the daemon writes it as a rule.
public struct RememberedChoice: Sendable, Equatable {
    /// Where the URL opened.
    public let target: Target
    /// The scheme the URL had.
    public let scheme: String
    /// The host, or the domain, it is remembered for.
    public let host: String
    /// Whether subdomains of `host` are included.
    public let includesSubdomains: Bool
    /// The priority of the remembered rule: just inside the rule that asked.
    public let priority: Int32

    /// An answer to remember, from its parts.
    public init(target: Target, scheme: String, host: String, includesSubdomains: Bool, priority: Int32) {
        self.target = target
        self.scheme = scheme
        self.host = host
        self.includesSubdomains = includesSubdomains
        self.priority = priority
    }
}
