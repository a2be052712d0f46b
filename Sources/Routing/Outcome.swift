/// The `outcome` of `OpenURLWithOptions`, exactly as on the wire.
public enum Outcome: String, Sendable, CaseIterable {
    /// A handler opened the URL.
    case handled
    /// A handler refused the URL.
    case discarded
    /// The system default application was launched.
    case opened
    /// No application is set up for the URL's scheme.
    case noApplication = "no-application"
    /// The application could not be started.
    case launchFailed = "launch-failed"
    /// The fallback does not open URLs of this kind (e.g. `javascript:`).
    case refused
    /// openurld could not learn what a handler decided (its own bus quota, a
    /// lost bus, shutting down), so it opened nothing: it fails closed.
    case undecided

    /// Whether the caller's URL counts as accepted.
    public var isAccepted: Bool { self == .handled || self == .opened }
}
