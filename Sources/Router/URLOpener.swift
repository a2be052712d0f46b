import Routing
import XDG

/// What the fallback did with a URL every handler passed on.
public enum LaunchResult: Sendable, Equatable {
    /// The application with this desktop-file ID was started.
    case opened(application: String)
    /// No application is set up for the scheme.
    case noApplication(reason: String)
    /// The application could not be started (`nil`: the system could not
    /// even read which one it is, e.g. with no file descriptor left).
    case launchFailed(application: String?, reason: String)
    /// The fallback does not open URLs like this one.
    case refused(reason: String)
}

/// The desktop's default application, as the daemon's last resort.
public protocol URLOpener: Sendable {
    /// The desktop-file ID that would open `url`, or `nil`; for `Explain`.
    func application(for url: ValidatedURL) -> String?
    /// Opens `url` with the default application.
    func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult
    /// Why `open` refuses `url` from the URL alone, whatever is installed
    /// (its scheme runs code, say), told without reading anything: `open`
    /// then answers `.refused` with this reason. `nil` when only opening
    /// can tell.
    func refusal(of url: ValidatedURL) -> String?
    /// Opens `url` with the application `id` names (a rule's `Open=`), whatever the defaults say.
    func open(_ url: ValidatedURL, with target: Target, activationToken: String?) async -> LaunchResult
    /// Runs `commandLine` (Exec syntax, no shell) with `url` (a rule's `Exec=`);
    /// `name` identifies it in logs.
    func run(_ commandLine: String, with url: ValidatedURL, name: String, activationToken: String?) async -> LaunchResult
    /// What the chooser offers for `url`: `offering` as far as each is
    /// installed, in that order, or (when empty) every target set up for the
    /// URL's scheme, the default first.
    func candidates(for url: ValidatedURL, offering: [Target]) -> [ChooserCandidate]
    /// The files whose change may change the defaults (`mimeapps.list` in
    /// each directory), which the daemon watches while it runs.
    var defaultsFiles: [(directory: String, name: String)] { get }
    /// Called when the daemon starts and whenever a `defaultsFiles` file changed.
    func defaultsChanged()
}

/// A fallback that opens nothing, for tests of the handler chain alone.
public struct NoURLOpener: URLOpener {
    /// An opener that opens nothing.
    public init() {}
    /// None: no application opens anything.
    public func application(for url: ValidatedURL) -> String? { nil }
    /// Opens nothing: `noApplication`.
    public func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult {
        .noApplication(reason: "no system default is configured")
    }
}

extension URLOpener {
    /// By default, only opening can tell.
    public func refusal(of url: ValidatedURL) -> String? { nil }
    /// By default, nothing to watch.
    public var defaultsFiles: [(directory: String, name: String)] { [] }
    /// Nothing to notice.
    public func defaultsChanged() {}
    /// By default, no application can be named: for fallbacks in tests of the chain alone.
    public func open(_ url: ValidatedURL, with target: Target, activationToken: String?) async -> LaunchResult {
        .noApplication(reason: "this fallback opens no named applications")
    }
    /// By default, nothing can be offered.
    public func candidates(for url: ValidatedURL, offering: [Target]) -> [ChooserCandidate] { [] }
    /// By default, no command can be run.
    public func run(_ commandLine: String, with url: ValidatedURL, name: String, activationToken: String?) async -> LaunchResult {
        .launchFailed(application: nil, reason: "this fallback runs no commands")
    }
}
