import DBus
import Desktop
import FileAccess
import Glibc
import XDG

/// How `openurl` tells the person about a link it could not open when it
/// has no terminal to speak to: started by KIO, `xdg-open`, a terminal's
/// link handler or a desktop launcher, its standard error is the journal.
/// Through the daemon, the daemon shows the notification (`notify-failure`,
/// with the action to open the preferences window); what `openurl` fails at
/// itself (no daemon to reach, a link it cannot read) it shows here.
struct FailureNotifier {
    let environment: [String: String]
    /// Whether to notify at all: no `--quiet`, and no terminal on standard
    /// error or a launcher's startup token in the environment.
    let isEnabled: Bool

    /// - Parameter standardErrorIsATerminal: whether the person reads standard error (by default, whether it is a terminal).
    init(environment: [String: String], quiet: Bool, standardErrorIsATerminal: Bool = isatty(2) != 0) {
        self.environment = environment
        isEnabled = OpenReport.notifies(quiet: quiet, standardErrorIsATerminal: standardErrorIsATerminal) { environment[$0] }
    }

    /// How long showing one notice may hold up the exit, both calls together.
    static let timeout: Duration = .seconds(1)

    /// Where the times of the last notices shown are kept, so that the rate
    /// limit holds across runs: `$XDG_RUNTIME_DIR/openurld/notified`.
    var recordPath: String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return runtime.trimmingSlash + "/openurld/notified"
    }

    /// Shows `notice` unless notifications are off, the person's setting
    /// turns them off, or the rate limit is reached; errors are ignored (the
    /// message is on standard error already).
    func show(_ notice: FailureNotice) {
        guard isEnabled, NotificationSettings(base: BaseDirectories(environment: environment)).showsFailures,
              let alsoNotShown = admit() else { return }
        guard let connection = try? BlockingConnection.session(environment: environment, timeout: Self.timeout) else { return }
        defer { connection.close() }
        let clock = ContinuousClock()
        let start = clock.now
        guard let capabilities = try? connection.call(
            NotificationsCall.busName, NotificationsCall.objectPath, NotificationsCall.interface, NotificationsCall.getCapabilities,
            timeout: Self.timeout
        ).decode([String].self) else { return }
        let left = Self.timeout - (clock.now - start)
        guard left > .zero else { return }
        _ = try? connection.call(
            NotificationsCall.busName, NotificationsCall.objectPath, NotificationsCall.interface, NotificationsCall.notify,
            NotificationsCall.arguments(for: notice, alsoNotShown: alsoNotShown, capabilities: Set(capabilities), offeringPreferences: false),
            timeout: left)
    }

    /// The rate limit, kept in `recordPath` (without one, every notice is shown).
    private func admit() -> Int? {
        guard let path = recordPath else { return 0 }
        var admitted: Int?
        do {
            try FileSystem.edit(path) { (text: String?) throws(EditError) -> String? in
                // One time per line (monotonic nanoseconds), and "dropped=N".
                let lines = (text ?? "").split(separator: "\n")
                let dropped = lines.first { $0.hasPrefix("dropped=") }.flatMap { Int($0.dropFirst(8)) } ?? 0
                var limit = NoticeRateLimit(shown: lines.compactMap { UInt64($0) }, dropped: dropped)
                admitted = limit.admit(at: NotificationsCall.now())
                return limit.shown.map(String.init).joined(separator: "\n") + "\ndropped=\(limit.dropped)\n"
            }
        } catch {
            return 0
        }
        return admitted
    }
}
