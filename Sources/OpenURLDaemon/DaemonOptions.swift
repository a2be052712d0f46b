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

    public init() {}

    /// What the command line asks for.
    public enum Action: Sendable, Equatable {
        case run(DaemonOptions)
        case help
        case version
    }

    /// Parses `arguments` (without the program name).
    /// - Throws: `UsageError` naming the offending argument.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        var options = DaemonOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            // Accept both `--name value` and `--name=value`.
            let (name, inline) = splitInlineValue(argument)
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                guard let next = remaining.popFirst() else { throw UsageError("\(name) needs a value") }
                return next
            }
            switch name {
            case "-h", "--help": return .help
            case "--version": return .version
            case "--verbose", "-v": options.verbose = true
            case "--replace": options.replace = true
            case "--address": options.address = try value()
            case "--handler-timeout": options.handlerTimeout = try seconds(name, try value())
            case "--walk-deadline": options.walkDeadline = try seconds(name, try value())
            case "--chooser-deadline":
                options.chooserDeadline = try seconds(name, try value())
                guard options.chooserDeadline <= DispatcherAPI.maximumChooserDeadline else {
                    throw UsageError("--chooser-deadline may be at most \(DispatcherAPI.maximumChooserDeadline), the time clients wait")
                }
            case "--no-remember": options.remember = false
            case "--max-handlers-per-client": options.maxHandlersPerClient = try count(name, try value())
            case "--max-handlers": options.maxHandlers = try count(name, try value())
            case "--idle-exit": options.idleExit = try seconds(name, try value())
            default: throw UsageError("unknown argument '\(argument)'")
            }
        }
        return .run(options)
    }

    public static let help = """
        Usage: openurld [OPTION]...

        Serve org.openurld.Dispatcher1 on the D-Bus session bus: open URLs for
        other programs, asking run-time handlers innermost-first and falling
        back to the desktop's default application for the URL's scheme.

        Normally started by D-Bus activation or by systemd (openurld.service);
        run it by hand to debug.

        Options:
          --address ADDRESS        serve on the bus at ADDRESS instead of the
                                   session bus (e.g. unix:path=/tmp/bus)
          --handler-timeout SECS   time one handler has to answer (default 5)
          --walk-deadline SECS     time a whole walk may take, launching the
                                   application included (default 20)
          --chooser-deadline SECS  time the person has to choose when a rule's
                                   Ask= or the caller's ask option shows the
                                   chooser (default 300, at most 1800); the
                                   walk's deadline starts again when the
                                   chooser is asked
          --no-remember            never write remembered answers (the chooser
                                   then offers no "Remember")
          --max-handlers-per-client N
                                   handlers one connection may register (default 64)
          --max-handlers N         handlers all connections together may
                                   register (default 4096)
          --idle-exit SECS         exit after SECS with no handler registered and
                                   no URL being opened (off by default; D-Bus
                                   activation starts openurld again when needed)
          --replace                take the name over from a running instance
          -v, --verbose            log full URLs and debug messages
          --version                print the version and exit
          -h, --help               print this help and exit

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

/// A mistake on the command line.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

func splitInlineValue(_ argument: String) -> (String, String?) {
    guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
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
