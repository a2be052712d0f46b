import DBus
import DispatcherAPI
import Glibc

/// `org.freedesktop.Notifications` as openurld calls it (the Desktop
/// Notifications specification 1.2): the names, and the arguments of the
/// `Notify` call for a `FailureNotice`, for the daemon's asynchronous
/// connection and `openurl`'s blocking one alike.
public enum NotificationsCall {
    /// The notification server's bus name.
    public static let busName: BusName = "org.freedesktop.Notifications"
    /// Its object path.
    public static let objectPath: ObjectPath = "/org/freedesktop/Notifications"
    /// Its interface.
    public static let interface: InterfaceName = "org.freedesktop.Notifications"
    /// `Notify`: shows a notification.
    public static let notify: MemberName = "Notify"
    /// `GetCapabilities`: what the server supports (actions, body markup).
    public static let getCapabilities: MemberName = "GetCapabilities"
    /// `ActionInvoked`: the person clicked an action.
    public static let actionInvoked: MemberName = "ActionInvoked"
    /// `ActivationToken`: the token for the window an action opens.
    public static let activationToken: MemberName = "ActivationToken"
    /// `NotificationClosed`: the notification went away.
    public static let notificationClosed: MemberName = "NotificationClosed"

    /// The one action offered: open the preferences window.
    public static let preferencesAction = "preferences"
    /// The desktop file the notifications are from (without `.desktop`, as the `desktop-entry` hint takes it).
    static let desktopEntry = DispatcherAPI.busName.rawValue

    /// `Notify`'s arguments: (app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout).
    /// - Parameters:
    ///   - capabilities: what the server said `GetCapabilities` (`body-markup`, `actions`).
    ///   - offeringPreferences: offer the preferences window, when the server shows actions.
    public static func arguments(
        for notice: FailureNotice, alsoNotShown: Int, capabilities: Set<String>, offeringPreferences: Bool
    ) -> [Value] {
        let actions = offeringPreferences && capabilities.contains("actions")
            ? ["default", "Preferences", preferencesAction, "Preferences"] : []
        let hints: [String: Variant] = ["desktop-entry": Variant(desktopEntry), "urgency": Variant(Value.byte(1))]
        return [
            .string("openurld"), .uint32(0), .string("dialog-warning"), .string(notice.summary),
            .string(notice.body(markup: capabilities.contains("body-markup"), alsoNotShown: alsoNotShown)),
            .array(.string, actions.map { .string($0) }), hints.dbusValue, .int32(-1),
        ]
    }

    /// Monotonic nanoseconds, the clock the rate limit counts in.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
