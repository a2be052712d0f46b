import Routing

// Compiled into the fast front too (Front/build), so that what `openurl URL`
// says is written once, whichever of the two programs says it.

/// What `openurl` says about the URLs it opens, and when it also shows a
/// failure as a desktop notification.
enum OpenReport {
    /// The line for one URL's outcome: written for every rejection, and
    /// with `--verbose` for successes too (`nil` when it is not written).
    /// - Parameter finalURL: the URL as the walk left it, shown after an arrow when handlers or rules rewrote it.
    static func line(
        _ url: String, as finalURL: String?, _ outcome: Outcome?, handler: UInt32?, application: String?, message: String?,
        via: String, verbose: Bool
    ) -> String? {
        let accepted = outcome?.isAccepted ?? false
        guard verbose || !accepted else { return nil }
        let shown = finalURL.map { $0 == url ? url : "\(url) → \($0)" } ?? url
        var line = "\(shown): \(outcome?.rawValue ?? "unknown outcome") (via \(via))"
        if let handler { line += ", handler \(handler)" }
        if let application { line += ", \(application)" }
        if let message { line += ": \(message)" }
        return line
    }

    /// The status a well-formed answer from openurld gives: by its outcome,
    /// or, for an outcome this `openurl` does not know (a newer daemon's), by
    /// the daemon's verdict.
    static func status(_ outcome: Outcome?, accepted: Bool) -> ExitStatus {
        outcome.map { ExitStatus($0, path: .throughDaemon) } ?? (accepted ? .accepted : .rejected)
    }

    /// Why a URL is reported not opened when openurld took it and stopped
    /// (or never answered) before saying what it decided; `detail` is the bus's.
    static func stoppedBeforeAnswering(_ detail: String) -> String {
        "openurld stopped before answering (\(detail))"
    }

    /// The error line for that case: the URL is not opened again, since it may be open already.
    static func stoppedBeforeAnsweringLine(_ url: String, _ detail: String) -> String {
        "\(url): \(stoppedBeforeAnswering(detail)); not opened again, as it may already be open"
    }

    /// Why a URL is reported not opened when openurld's answer could not be
    /// read (it is not `ba{sv}`); `detail` says how.
    static func unreadableAnswer(_ detail: String) -> String {
        "openurld's answer cannot be read (\(detail))"
    }

    /// The status an error answer to `OpenURLWithOptions` gives: `InvalidArgs`
    /// is the caller's mistake (2); anything else leaves the URL unopened (3).
    static func status(ofError name: String) -> ExitStatus {
        name == "org.freedesktop.DBus.Error.InvalidArgs" ? .usage : .unreachable
    }

    /// Whether a failure is also shown as a notification: not with
    /// `--quiet`; otherwise when standard error is no terminal (the journal,
    /// under KIO, `xdg-open` or a launcher) or a launcher's token is set.
    static func notifies(quiet: Bool, standardErrorIsATerminal: Bool, variable: (String) -> String?) -> Bool {
        let launched = ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"].contains { !(variable($0) ?? "").isEmpty }
        return !quiet && (!standardErrorIsATerminal || launched)
    }

    /// The `argv[0]` under which the full CLI only shows one failure as a
    /// notification: the fast front runs it so for what it cannot show
    /// itself (`openurl-report-failure URL REASON`).
    static let reportFailureProgram = "openurl-report-failure"
}
