import Routing

// Compiled into the fast front too (Front/build): Routing's vocabulary only.

/// The documented exit statuses.
public enum ExitStatus: Int32, Sendable {
    /// Every URL was accepted; the command did what was asked.
    case accepted = 0
    /// A URL was rejected (discarded by a handler, refused by the fallback).
    case rejected = 1
    /// A usage error or an invalid URL.
    case usage = 2
    /// The dispatcher could not be reached and opening directly did not work
    /// either; or it took a URL and stopped before answering (the URL is then
    /// not opened again: it may already be open).
    case unreachable = 3

    /// Which way a URL went: through openurld, or opened by `openurl`
    /// itself because openurld could not be reached.
    public enum Path: Sendable {
        case throughDaemon, directly
    }

    /// The status a walk's outcome gives on `path`: the one mapping both of
    /// `openurl`'s ways of opening use. Through openurld every refusal is a
    /// rejection (1); opened directly, an application missing or failing to
    /// start means openurld was unreachable and the direct way failed too (3).
    public init(_ outcome: Outcome, path: Path) {
        switch outcome {
        case .handled, .opened: self = .accepted
        case .discarded, .refused, .undecided: self = .rejected
        case .noApplication, .launchFailed: self = path == .directly ? .unreachable : .rejected
        }
    }
}
