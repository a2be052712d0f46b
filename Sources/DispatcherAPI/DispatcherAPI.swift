import DBus
import Routing

/// The names other programs are written against. `docs/org.openurld.Dispatcher1.xml`
/// is the source of truth; a test checks the daemon's introspection against it.
public enum DispatcherAPI {
    /// The package version, reported by `--version` and the `Version` property.
    public static let version = "0.1.0"

    /// How long one URL's whole walk may take, launches included, by default:
    /// safely under libdbus's 25 s default call timeout, so that callers get
    /// the answer rather than `NoReply`.
    public static let walkDeadline: Duration = .seconds(20)

    /// How long the person may take to choose in the chooser, by default;
    /// a walk that asks has this long from the moment it asks.
    public static let chooserDeadline: Duration = .seconds(300)

    /// How long a caller that waits for the outcome should wait for
    /// `OpenURL`: a walk that asks the person has the chooser's time (at most
    /// `maximumChooserDeadline`) and then the walk's.
    public static let longestWalk: Duration = maximumChooserDeadline + walkDeadline + .seconds(5)
    /// The most `--chooser-deadline` may be.
    public static let maximumChooserDeadline: Duration = .seconds(1800)

    /// The well-known name the daemon owns on the session bus.
    public static let busName: BusName = "org.openurld.Dispatcher1"
    /// The object that serves the interfaces.
    public static let objectPath: ObjectPath = "/org/openurld/Dispatcher1"
    /// The dispatcher's interface: OpenURL, RegisterHandler, Explain, …
    public static let dispatcherInterface: InterfaceName = "org.openurld.Dispatcher1"
    /// The interface handlers implement: HandleURL.
    public static let handlerInterface: InterfaceName = "org.openurld.Handler1"
    /// The freedesktop Application interface, for DBusActivatable launching.
    public static let applicationInterface: InterfaceName = "org.freedesktop.Application"
    /// The dispatcher's own desktop file ID; the fallback never launches it.
    public static let desktopID = "org.openurld.Dispatcher1.desktop"

    /// The members of `org.openurld.Dispatcher1` and `org.openurld.Handler1`,
    /// named once for the daemon that exports them and every client.
    public enum Member {
        /// `OpenURL(s url) -> (b accepted)`.
        public static let openURL: MemberName = "OpenURL"
        /// `OpenURLWithOptions(s url, a{sv} options) -> (b accepted, a{sv} result)`.
        public static let openURLWithOptions: MemberName = "OpenURLWithOptions"
        /// `RegisterHandler(o path, a{sv} spec) -> (u id)`.
        public static let registerHandler: MemberName = "RegisterHandler"
        /// `UnregisterHandler(u id)`.
        public static let unregisterHandler: MemberName = "UnregisterHandler"
        /// `ListHandlers() -> (aa{sv} handlers)`.
        public static let listHandlers: MemberName = "ListHandlers"
        /// `ListRules() -> (aa{sv} rules, as problems)`.
        public static let listRules: MemberName = "ListRules"
        /// `Explain(s url) -> (aa{sv} handlers, s application)`.
        public static let explain: MemberName = "Explain"
        /// `DetectLinks(s text, a{sv} options) -> (a(uuss) links)`.
        public static let detectLinks: MemberName = "DetectLinks"
        /// The `HandlersChanged` signal, sent when a handler comes or goes.
        public static let handlersChanged: MemberName = "HandlersChanged"
        /// `org.openurld.Handler1.HandleURL`.
        public static let handleURL: MemberName = "HandleURL"
    }

    /// The longest activation token taken (`ActivationToken.maximumLength`).
    public static let maximumTokenLength = ActivationToken.maximumLength

    /// What is wrong with an activation token or startup ID (from a caller,
    /// or a chooser), or `nil` (`ActivationToken.problem`).
    public static func activationTokenProblem(_ token: String) -> String? { ActivationToken.problem(token) }

    /// `org.openurld.Error.NoSuchHandler`: no handler has the given id.
    public static let noSuchHandler = ErrorName(trusted: "org.openurld.Error.NoSuchHandler")
    /// `org.openurld.Error.ShuttingDown`: the daemon is stopping and takes no new work.
    public static let shuttingDown = ErrorName(trusted: "org.openurld.Error.ShuttingDown")
    /// `org.openurld.Error.NotOpened`: `Application.Open` could not open some
    /// of its URIs (the message names each, with why).
    public static let notOpened = ErrorName(trusted: "org.openurld.Error.NotOpened")
}
