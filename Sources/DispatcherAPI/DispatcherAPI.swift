import DBus

/// The names other programs are written against. `docs/org.openurld.Dispatcher1.xml`
/// is the source of truth; a test checks the daemon's introspection against it.
public enum DispatcherAPI {
    /// The package version, reported by `--version` and the `Version` property.
    public static let version = "0.1.0"

    /// How long one URL's whole walk may take, launches included, by default:
    /// safely under libdbus's 25 s default call timeout, so that callers get
    /// the answer rather than `NoReply`.
    public static let walkDeadline: Duration = .seconds(20)

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
        public static let openURL: MemberName = "OpenURL"
        public static let openURLWithOptions: MemberName = "OpenURLWithOptions"
        public static let registerHandler: MemberName = "RegisterHandler"
        public static let unregisterHandler: MemberName = "UnregisterHandler"
        public static let listHandlers: MemberName = "ListHandlers"
        public static let listRules: MemberName = "ListRules"
        public static let explain: MemberName = "Explain"
        public static let detectLinks: MemberName = "DetectLinks"
        public static let handlersChanged: MemberName = "HandlersChanged"
        /// `org.openurld.Handler1.HandleURL`.
        public static let handleURL: MemberName = "HandleURL"
    }

    /// `org.openurld.Error.NoSuchHandler`: no handler has the given id.
    public static let noSuchHandler = ErrorName(trusted: "org.openurld.Error.NoSuchHandler")
    /// `org.openurld.Error.ShuttingDown`: the daemon is stopping and takes no new work.
    public static let shuttingDown = ErrorName(trusted: "org.openurld.Error.ShuttingDown")
    /// `org.openurld.Error.NotOpened`: `Application.Open` could not open some
    /// of its URIs (the message names each, with why).
    public static let notOpened = ErrorName(trusted: "org.openurld.Error.NotOpened")
}
