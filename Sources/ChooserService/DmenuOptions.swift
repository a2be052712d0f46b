/// `openurld-chooser-dmenu`'s command line.
public struct DmenuOptions: Sendable, Equatable {
    public var address: String?
    public var idleExit: Duration? = .seconds(30)
    /// The menu command; empty: the first of `knownMenus` on `PATH`.
    public var command: [String] = []

    /// Menus tried in order when no command is given.
    public static let knownMenus: [[String]] = [
        ["fuzzel", "--dmenu", "--prompt", "%wOpen %u with: "],
        ["wofi", "--dmenu", "--prompt", "%wOpen %u with"],
        ["rofi", "-dmenu", "-p", "%wOpen %u with"],
        ["bemenu", "-p", "%wOpen %u with"],
        ["dmenu", "-p", "%wOpen %u with"],
    ]

    public enum Action: Sendable, Equatable {
        case run(DmenuOptions)
        case help
    }

    /// Parses the arguments after the program name.
    public static func parse(_ arguments: [String]) throws(DmenuUsageError) -> Action {
        var options = DmenuOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": return .help
            case "--address":
                guard let value = remaining.popFirst() else { throw DmenuUsageError("--address needs a value") }
                options.address = value
            case "--idle-exit":
                guard let limit = remaining.popFirst().flatMap(ChooserService.idleExit) else {
                    throw DmenuUsageError("--idle-exit takes a number of seconds (0 for never)")
                }
                options.idleExit = limit
            case "--":
                options.command = Array(remaining)
                return .run(options)
            case let other where other.hasPrefix("-"):
                throw DmenuUsageError("unknown option '\(other)'")
            default:
                options.command = [argument] + remaining
                return .run(options)
            }
        }
        return .run(options)
    }

    public static let help = """
        Usage: openurld-chooser-dmenu [--address ADDRESS] [--idle-exit SECS] [--] [MENU [ARG]...]

        Serve org.openurld.Chooser1 with a dmenu-style menu, for keyboard-driven
        desktops (sway, Hyprland, i3, river). When openurld asks where a link
        should go, the targets are written to MENU's standard input, one per
        line ("firefox (work)  [firefox.desktop@work]"), followed by "Use the
        default application (NAME)"; the line MENU prints is the choice.
        Printing nothing, or exiting with an error (Esc in every such menu),
        cancels: the link is not opened. A menu still open when openurld stops
        waiting is closed, and the link is not opened.

        In MENU's arguments %h stands for the link's host, %u for the link
        shortened to 60 characters (its host whole), and %w for its warnings
        ("⚠ not encrypted · NOT apple.com: "), empty when there are none;
        hosts are shown as the GTK chooser shows them (a look-alike in ASCII).
        Without MENU, the first of fuzzel, wofi, rofi, bemenu and dmenu found on
        PATH is used, with its own dmenu option and the prompt
        '%wOpen %u with'.

        Options:
          --address ADDRESS  serve on the bus at ADDRESS instead of the session bus
          --idle-exit SECS   exit after SECS with nothing to ask (default 30;
                             0: never); D-Bus activation starts it again
          -h, --help         print this help and exit

        Examples:
          openurld-chooser-dmenu -- fuzzel --dmenu --prompt '%wOpen %u with: '
          openurld-chooser-dmenu -- rofi -dmenu -i -p '%wOpen %h'

        To make it the chooser, run it from the compositor's startup (it then owns
        the name before anything asks), or override the activation file
        org.openurld.Chooser1.service in ~/.local/share/dbus-1/services.
        """
}

/// A mistake on `openurld-chooser-dmenu`'s command line.
public struct DmenuUsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
