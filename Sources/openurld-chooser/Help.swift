import ChooserService
import CommandLineOptions

/// `--service`: the one option only the GTK chooser takes.
let serviceOption = Option("--service", help: "serve org.openurld.Chooser1 (started by D-Bus activation)")
/// The options, for parsing and `--help`.
let chooserOptions = [
    serviceOption, ChooserOptions.address, ChooserOptions.idleExit, Option.version, Option.help,
]

let chooserHelp = """
    Usage: openurld-chooser [--service [--address ADDRESS] [--idle-exit SECS]]

    The openurld chooser. With --service, serve org.openurld.Chooser1 on the
    D-Bus session bus: when a rule's Ask= (or openurl --ask) asks where a link
    should go, show a small window listing the applications, desktop actions
    and browser profiles that can open it. D-Bus activation starts it this way.

    Without --service, show the preferences window: whether openurld is the
    default browser and, when it is, where links no rule decides open (with a
    Use button for each other browser); whether failures are shown as
    notifications; the remembered choices, the loaded rules and their
    problems, and where the rule files are.

    In the window:
      Up, Down       select a target        Enter    open with it
      1 to 9         open with that target  Esc      cancel (the link is not opened)
      Ctrl+C         copy the address       Ctrl+L   edit the address (Enter opens)
      Alt+R          remember the choice for this host

    In the preferences window ("Link Chooser"): Esc or Ctrl+W closes it.

    Options:
    \(Option.helpLines(for: chooserOptions).dropLast())
    """
