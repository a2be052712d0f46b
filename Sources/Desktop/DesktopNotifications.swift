import DBus
import DispatcherAPI
import Synchronization
import XDG

/// Shows `FailureNotice`s through the session's notification server
/// (`org.freedesktop.Notifications`), for the daemon: rate-limited
/// (`NoticeRateLimit`), off the walk (a server that never answers costs a
/// task for 2 s, nothing else), escaped as all peer text, and with an action
/// that opens the preferences window where the server shows actions.
///
/// `ActionInvoked` is taken only from the connection that answered the
/// `Notify` call which returned that ID: anyone can send the signal.
public final class DesktopNotifications: FailureNotices {
    private let connection: Connection
    private let settings: NotificationSettings
    private let openPreferences: (@Sendable (_ activationToken: String?) -> Void)?
    private let log: @Sendable (String) -> Void
    private let state = Mutex(State())
    /// How long one `GetCapabilities` or `Notify` call may take.
    static let callTimeout: Duration = .seconds(2)

    struct State {
        var limit = NoticeRateLimit()
        /// The notifications shown with an action, by ID: the server connection that returned the ID.
        var shown: [UInt32: BusName] = [:]
        /// Activation tokens the server sent for an ID, before its ActionInvoked.
        var tokens: [UInt32: String] = [:]
        var subscriptions: [SignalSubscription] = []
    }

    /// - Parameters:
    ///   - openPreferences: starts the preferences window with the server's
    ///     activation token; `nil` when there is none to start (then no action is offered).
    ///   - log: where failures to notify are said (the journal).
    public init(connection: Connection, base: BaseDirectories,
                openPreferences: (@Sendable (_ activationToken: String?) -> Void)?, log: @escaping @Sendable (String) -> Void) {
        self.connection = connection
        settings = NotificationSettings(base: base)
        self.openPreferences = openPreferences
        self.log = log
    }

    /// Follows the server's signals for the notifications shown with an action.
    public func start() async throws(DBusError) {
        let signals = [NotificationsCall.actionInvoked, NotificationsCall.activationToken, NotificationsCall.notificationClosed]
        var subscriptions: [SignalSubscription] = []
        for member in signals {
            let rule = MatchRule(interface: NotificationsCall.interface, member: member, path: NotificationsCall.objectPath)
            subscriptions.append(try await connection.subscribe(to: rule) { [weak self] signal in self?.received(signal) })
        }
        state.withLock { $0.subscriptions = subscriptions }
    }

    deinit { state.withLock { $0.subscriptions }.forEach { $0.cancel() } }

    /// Shows `notice`, unless the person turned notices off or the rate limit holds it back.
    public func show(_ notice: FailureNotice) {
        guard settings.showsFailures else { return }
        guard let alsoNotShown = state.withLock({ $0.limit.admit(at: NotificationsCall.now()) }) else { return }
        Task { await self.send(notice, alsoNotShown: alsoNotShown) }
    }

    private func send(_ notice: FailureNotice, alsoNotShown: Int) async {
        // The action is offered only when its signal is followed (start succeeded).
        let offering = openPreferences != nil && state.withLock { !$0.subscriptions.isEmpty }
        do {
            let capabilities = try await connection.call(
                NotificationsCall.busName, NotificationsCall.objectPath, NotificationsCall.interface, NotificationsCall.getCapabilities,
                timeout: Self.callTimeout
            ).decode([String].self)
            let message = try Message.methodCall(
                destination: NotificationsCall.busName, path: NotificationsCall.objectPath, interface: NotificationsCall.interface,
                member: NotificationsCall.notify,
                arguments: NotificationsCall.arguments(
                    for: notice, alsoNotShown: alsoNotShown, capabilities: Set(capabilities), offeringPreferences: offering))
            let reply = try await connection.call(message, timeout: Self.callTimeout)
            let id = try reply.arguments().decode(UInt32.self)
            guard let server = reply.sender else { return }
            if offering, capabilities.contains("actions") {
                state.withLock { state in
                    state.shown[id] = server
                    // Bounded: servers that never say NotificationClosed do exist.
                    if state.shown.count > 64, let oldest = state.shown.keys.min() {
                        state.shown[oldest] = nil
                        state.tokens[oldest] = nil
                    }
                }
            }
        } catch {
            log("cannot show a notification (\(error.message)): \(notice.summary): \(notice.body(markup: false))")
        }
    }

    /// One of the server's signals, on the connection's loop.
    private func received(_ signal: ReceivedSignal) {
        guard let id = signal.arguments.first.flatMap(UInt32.init(dbusValue:)),
              let sender = signal.message.sender, let member = signal.message.member else { return }
        let action: String? = state.withLock { state in
            guard state.shown[id] == sender else { return nil }
            switch member {
            case NotificationsCall.activationToken:
                if signal.arguments.count == 2, let token = String(dbusValue: signal.arguments[1]) { state.tokens[id] = token }
                return nil
            case NotificationsCall.actionInvoked:
                guard signal.arguments.count == 2, let key = String(dbusValue: signal.arguments[1]) else { return nil }
                return key
            default:
                state.shown[id] = nil
                state.tokens[id] = nil
                return nil
            }
        }
        guard let action, action == NotificationsCall.preferencesAction || action == "default" else { return }
        let token = state.withLock { $0.tokens.removeValue(forKey: id) }
        openPreferences?(token.flatMap { DispatcherAPI.activationTokenProblem($0) == nil ? $0 : nil })
    }
}
