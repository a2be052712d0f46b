import CommandLineOptions

/// `openurld-chooser-dmenu`'s command line.
public struct DmenuOptions: Sendable, Equatable {
    /// The bus, and when to leave: what every chooser takes.
    public var chooser = ChooserOptions()
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

    /// What the command line asks for: serve with these options, or print the help.
    public enum Action: Sendable, Equatable {
        case run(DmenuOptions)
        case help
    }

    /// Parses the arguments after the program name: the options, then the
    /// menu's command line (after `--`, or from the first word that is no option).
    public static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        let given = try ParsedArguments(arguments, options: Self.options, words: .commandAtFirstOperand)
        if given.has(Option.help) { return .help }
        var options = DmenuOptions()
        options.chooser = try ChooserOptions(given)
        options.command = given.command ?? []
        return .run(options)
    }

    /// The options, for parsing and `--help`.
    static let options = [ChooserOptions.address, ChooserOptions.idleExit, Option.help]

    /// The `--help` text.
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
        \(Option.helpLines(for: options))
        Examples:
          openurld-chooser-dmenu -- fuzzel --dmenu --prompt '%wOpen %u with: '
          openurld-chooser-dmenu -- rofi -dmenu -i -p '%wOpen %h'

        To make it the chooser, run it from the compositor's startup (it then owns
        the name before anything asks), or override the activation file
        org.openurld.Chooser1.service in ~/.local/share/dbus-1/services.
        """
}
