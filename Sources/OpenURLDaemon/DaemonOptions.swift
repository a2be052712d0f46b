import CommandLineOptions
import DispatcherAPI

/// The daemon's command-line options.
public struct DaemonOptions: Sendable, Equatable {
    /// The bus to serve on; `nil` means the session bus.
    public var address: String?
    /// How long one handler may take to answer.
    public var handlerTimeout: Duration = .seconds(5)
    /// How long a whole walk may take (kept under the 25 s libdbus client default).
    public var walkDeadline: Duration = DispatcherAPI.walkDeadline
    /// How long the person may take to choose when a walk asks.
    public var chooserDeadline: Duration = DispatcherAPI.chooserDeadline
    /// Write remembered chooser answers to `rules.d/remembered.rules`.
    public var remember = true
    /// Take the name over from a running instance that allows replacement.
    public var replace = false
    /// Log full URLs and debug detail.
    public var verbose = false
    /// How many handlers one client connection may register.
    public var maxHandlersPerClient = 64
    /// How many handlers all clients together may register.
    public var maxHandlers = 4096
    /// Exit after this long with no handler registered and no walk in flight
    /// (D-Bus activation brings the daemon back on the next call); `nil`: never.
    public var idleExit: Duration?

    /// The defaults.
    public init() {}

    /// What the command line asks for.
    public enum Action: Sendable, Equatable {
        case run(DaemonOptions)
        case help
        case version
    }

    /// The options, declared once for parsing and for `--help`.
    enum Flag {
        static let address = Option(
            "--address", value: "ADDRESS", help: "serve on the bus at ADDRESS instead of the session bus (e.g. unix:path=/tmp/bus)")
        static let handlerTimeout = Option("--handler-timeout", value: "SECS", help: "time one handler has to answer (default 5)")
        static let walkDeadline = Option(
            "--walk-deadline", value: "SECS", help: "time a whole walk may take, launching the application included (default 20)")
        static let chooserDeadline = Option(
            "--chooser-deadline", value: "SECS",
            help: "time the person has to choose when a rule's Ask= or the caller's ask option shows the chooser (default 300, at most 1800); the walk's deadline starts again when the chooser is asked")
        static let noRemember = Option(
            "--no-remember", help: "never write remembered answers (the chooser then offers no \"Remember\")")
        static let maxHandlersPerClient = Option(
            "--max-handlers-per-client", value: "N", help: "handlers one connection may register (default 64)")
        static let maxHandlers = Option(
            "--max-handlers", value: "N", help: "handlers all connections together may register (default 4096)")
        static let idleExit = Option(
            "--idle-exit", value: "SECS",
            help: "exit after SECS with no handler registered and no URL being opened (off by default; D-Bus activation starts openurld again when needed)")
        static let replace = Option("--replace", help: "take the name over from a running instance")
        static let verbose = Option("-v", "--verbose", help: "log full URLs and debug messages")

        static let all = [
            address, handlerTimeout, walkDeadline, chooserDeadline, noRemember, maxHandlersPerClient, maxHandlers, idleExit, replace,
            verbose, Option.version, Option.help,
        ]
    }

    /// Parses `arguments` (without the program name); an option given twice takes its last value.
    /// - Throws: `UsageError` naming the offending argument.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        let given = try ParsedArguments(arguments, options: Flag.all, words: .none)
        if given.has(Option.help) { return .help }
        if given.has(Option.version) { return .version }
        var options = DaemonOptions()
        func last(_ option: Option) -> String? { given.values(of: option).last }
        options.verbose = given.has(Flag.verbose)
        options.replace = given.has(Flag.replace)
        options.remember = !given.has(Flag.noRemember)
        options.address = last(Flag.address)
        if let text = last(Flag.handlerTimeout) { options.handlerTimeout = try seconds(Flag.handlerTimeout.name, text) }
        if let text = last(Flag.walkDeadline) { options.walkDeadline = try seconds(Flag.walkDeadline.name, text) }
        if let text = last(Flag.chooserDeadline) {
            options.chooserDeadline = try seconds(Flag.chooserDeadline.name, text)
            guard options.chooserDeadline <= DispatcherAPI.maximumChooserDeadline else {
                throw UsageError("--chooser-deadline may be at most \(DispatcherAPI.maximumChooserDeadline), the time clients wait")
            }
        }
        if let text = last(Flag.maxHandlersPerClient) { options.maxHandlersPerClient = try count(Flag.maxHandlersPerClient.name, text) }
        if let text = last(Flag.maxHandlers) { options.maxHandlers = try count(Flag.maxHandlers.name, text) }
        if let text = last(Flag.idleExit) { options.idleExit = try seconds(Flag.idleExit.name, text) }
        return .run(options)
    }

    /// The `--help` text.
    public static let help = """
        Usage: openurld [OPTION]...

        Serve org.openurld.Dispatcher1 on the D-Bus session bus: open URLs for
        other programs, asking run-time handlers innermost-first and falling
        back to the desktop's default application for the URL's scheme.

        Normally started by D-Bus activation or by systemd (openurld.service);
        run it by hand to debug.

        Options:
        \(Option.helpLines(for: Flag.all, alignedWith: [("--chooser-deadline SECS", "")]))
        Logging goes to standard error with syslog priority prefixes (<3> to <7>),
        which journald understands. Failures no caller will show the person (a
        rule that failed, a walk that failed after its caller was answered, a
        link openurl could not open with no terminal to say it on) are also shown
        as desktop notifications (org.freedesktop.Notifications), at most 3 in
        30 s, unless $XDG_CONFIG_HOME/openurld/openurld.conf says
        Failures=false in its [Notifications] group.

        Files: the defaults are read from mimeapps.list (watched while openurld
        runs); the application behind openurld, per type, is recorded in
        $XDG_STATE_HOME/openurld/previous-defaults.list (see openurl help default);
        rules are read from $XDG_CONFIG_HOME/openurld/rules.d and
        $XDG_CONFIG_DIRS/openurld/rules.d, and remembered answers are written to
        rules.d/remembered.rules.

        Exit status: 0 after SIGTERM or SIGINT, after --idle-exit, or when another
        instance took over with --replace; 1 when the bus cannot be reached,
        the name is taken, or the connection drops; 2 on a usage error.
        """
}

/// Parses a count between 1 and 1 000 000.
func count(_ option: String, _ text: String) throws(UsageError) -> Int {
    guard let value = Int(text), value >= 1, value <= 1_000_000 else {
        throw UsageError("\(option) takes a whole number between 1 and 1000000, not '\(text)'")
    }
    return value
}

/// Parses a positive number of seconds, fractions allowed ("0.5").
func seconds(_ option: String, _ text: String) throws(UsageError) -> Duration {
    guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
        throw UsageError("\(option) takes a number of seconds between 0 and 86400, not '\(text)'")
    }
    return .milliseconds(Int64((value * 1000).rounded()))
}
