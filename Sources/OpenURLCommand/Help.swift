import CommandLineOptions

/// `--help` texts, written like man pages: synopsis, description, options,
/// exit status, examples. A page's options and `openurl --help`'s commands
/// list are generated from `Subcommand.all`, so that they say what parsing does.
enum Help {
    /// One page: the text before its options, and the text after them.
    struct Page: Sendable {
        let name: String
        let head: String
        let tail: String
    }

    /// The page for `topic` (`nil`: the main page), or `nil` when there is none.
    static func text(for topic: String?) -> String? {
        guard let topic else { return text(of: main) }
        return Subcommand.named(topic).map { text(of: $0.page) }
    }

    static func text(of page: Page) -> String {
        var text = page.head + "\n"
        var commands: [(label: String, help: String)] = []
        if page.name == main.name {
            commands = ([Subcommand.open] + Subcommand.all).map { (label: $0.synopsis, help: $0.summary) }
            text += "Commands:\n" + Option.helpRows(commands) + "\nRun 'openurl COMMAND --help' for the details of a command.\n\n"
        }
        let options = Subcommand.options(on: page)
        if !options.isEmpty {
            let extra = page.name == main.name ? [(label: "--", help: "treat every following argument as a URL")] : []
            text += "Options:\n" + Option.helpLines(for: options, extra: extra, alignedWith: commands) + "\n"
        }
        return text + page.tail
    }

    static let main = Page(
        name: "main",
        head: """
            Usage: openurl [-v] [-q] [--ask] URL|PATH...
                   openurl COMMAND [OPTION]... [ARG]...

            Open URLs through openurld, the programmable URL dispatcher: handlers
            registered by running programs and rules from rule files are asked first,
            innermost first, then the desktop's default application for the URL's
            scheme opens it. When no dispatcher can be reached, openurl applies the
            rules and opens the URL with the default application itself, as the
            dispatcher would.

            This is also what the dispatcher's desktop file runs, so openurl can be the
            default web browser and mail client.

            Every argument is checked before any is opened: an invalid URL, or a first
            word spelled like a command that is not one ('openurl explian URL'), opens
            nothing. A local PATH (absolute, ./ or ../, or an existing file) is opened
            as its file: URL, with the default application for the file's MIME type.

            """,
        tail: """
            When standard error is not a terminal (openurl was started by KIO, xdg-open,
            a terminal's link handler or a desktop launcher, and its messages go to the
            journal), a link it could not open is also shown as a desktop notification
            (org.freedesktop.Notifications), with the reason: by openurld, with an
            action that opens the preferences window, or by openurl itself when
            openurld cannot be reached. A link a rule, a handler or the person chose not
            to open is not a failure. At most 3 are shown in 30 s. --quiet, or
            Failures=false in the [Notifications] group of
            $XDG_CONFIG_HOME/openurld/openurld.conf, turns them off.

            Environment:
              XDG_ACTIVATION_TOKEN, DESKTOP_STARTUP_ID
                                     passed on, so that the opened window can take focus
              DBUS_SESSION_BUS_ADDRESS
                                     the session bus where openurld runs

            Exit status:
              0  every URL was accepted (handled, or an application was started)
              1  a URL was rejected (a handler discarded it, or the fallback refuses
                 URLs like it, e.g. javascript:)
              2  a usage error or an invalid URL
              3  openurld could not be reached, and opening the URL directly failed too;
                 or openurld took the URL and stopped before answering (it is not
                 opened again: it may already be open)

            Examples:
              openurl https://example.com
              openurl explain https://zoom.us/j/123
              openurl handle --scheme https --host '*.example.com' -- ./my-handler.sh
              openurl set-default http https mailto

            """)

    static let explain = Page(
        name: "explain",
        head: """
            Usage: openurl explain [--json] URL

            Show, without opening anything, which registered handlers and rules
            openurld would ask about URL and in which order (innermost first: your own
            caller-scoped handlers, then by priority, run-time handlers before rules
            of the same priority, newest handler first, rules in file order), what
            each rule would do to it (rewrite it, strip its query, stop the walk, or
            open it), and which application the fallback would launch if every step
            passed. Rules are applied; handlers are not asked (they count as passing).

            """,
        tail: """
            Exit status: 0 on success, 2 for an invalid URL, 3 when openurld cannot be reached.

            """)

    static let handlers = Page(
        name: "handlers",
        head: """
            Usage: openurl handlers [--json]

            List the handlers registered with openurld: id, name, owner (a D-Bus
            unique name), priority, scope, and what they match.

            """,
        tail: """
            Exit status: 0 on success, 3 when openurld cannot be reached.

            """)

    static let rules = Page(
        name: "rules",
        head: """
            Usage: openurl rules [--json]

            List the rules openurld loaded from its rule files, in the order they are
            asked at equal priority: name, file and line, priority, what they match,
            and what they do; then any problems found in the files, as FILE:LINE: REASON.
            When openurld cannot be reached, the files are read as it would read them.

            Rule files: $XDG_CONFIG_HOME/openurld/rules.d/*.rules (~/.config/...), then
            each $XDG_CONFIG_DIRS/openurld/rules.d/ (/etc/xdg/...); a user file hides a
            system file of the same name. See docs/rules.md for the syntax.

            """,
        tail: """
            Exit status: 0 on success, 3 when the session bus cannot be reached.

            """)

    static let checkRules = Page(
        name: "checkRules",
        head: """
            Usage: openurl check-rules [FILE]...

            Check rule files for mistakes without loading them into openurld: every
            problem is printed as FILE:LINE: REASON, then a summary. Without FILE,
            checks the rule files openurld would read. A rule with a problem is
            skipped when loading, and only that rule; the file's other rules load.

            """,
        tail: """
            Exit status:
              0  no problems
              1  at least one problem was found

            Examples:
              openurl check-rules
              openurl check-rules ~/.config/openurld/rules.d/10-work.rules

            """)

    static let detect = Page(
        name: "detect",
        head: """
            Usage: openurl detect [--json | --open] [--kinds KIND[,KIND]...] [--region CC] [TEXT]...

            Find the links a text mentions and print them, one URL per line: URLs
            with a scheme (https://…, mailto:…, zoommtg://…), bare web addresses
            (www.example.com, example.org/path, printed with https://), e-mail
            addresses (printed as mailto:), phone numbers (printed as tel: with
            only the digits) and Markdown links [text](url). Trailing punctuation
            and unbalanced closing brackets are left out; dates, versions, prices
            and IP addresses are not phone numbers. National numbers are read in the
            region of --region or of the locale (fr_FR: 06 12 34 56 78 is
            tel:+33612345678, and 0033… or, in the US, 011… become +); without a
            region they stay national (tel:0612345678). TEXT is the words given,
            joined by spaces; without TEXT (or with -), standard input is read.

            """,
        tail: """
            Exit status:
              0  links were found (and, with --open, all were accepted)
              1  no link was found (or, with --open, one was rejected)
              2  a usage error
              3  with --open: openurld could not be reached and opening directly failed

            Examples:
              openurl detect 'call +1 (555) 010-9999 or see example.org/docs'
              tmux capture-pane -p | openurl detect --kinds web | fzf | xargs openurl
              openurl detect --json < message.txt

            """)

    static let handle = Page(
        name: "handle",
        head: """
            Usage: openurl handle [--scheme S]... [--host H]... [--path P]...
                                  [--priority N] [--scope session|caller] [--name NAME]
                                  -- COMMAND [ARG]...

            Register a handler with openurld that lives as long as this process. For
            each URL it is asked about, COMMAND runs with the URL appended as one more
            argument (no shell) and OPENURL_URL, OPENURL_CALLER and
            OPENURL_CALLER_APP_ID in its environment. The first line it prints decides:

              handled              stop: the URL was opened
              discarded            stop: the URL must not be opened
              systemAction         pass the URL on to the next handler
              systemAction URL     pass URL on instead (a rewrite)

            With no output, exit status 0 means handled and anything else means
            systemAction. A command still running after 4 seconds is killed and counts
            as systemAction. So any shell script can be a handler.

            """,
        tail: """
            Stop with Ctrl-C or SIGTERM; the handler is removed at once.

            Exit status: 0 after a signal, 2 on a usage error, 3 when openurld cannot be
            reached, 1 when it refuses the registration.

            Example:
              openurl handle --scheme https --host zoom.us -- sh -c \\
                  'echo "systemAction zoommtg://zoom.us/join?confno=${1##*/}"' sh

            """)

    static let defaults = Page(
        name: "defaults",
        head: """
            Usage: openurl default [SCHEME|TYPE|PATH]...
                   openurl set-default [--browser] [--fallback=ID] [SCHEME]...
                   openurl unset-default [--browser] [SCHEME]...

            default shows, per scheme, the application openurld's fallback would launch
            (never openurld itself), and where that answer came from:

              https  firefox.desktop  (the default before openurld)

            When the scheme's default is another application, that one. When it is
            openurld, the application behind it: the default before openurld, from
            openurld's record ($XDG_STATE_HOME/openurld/previous-defaults.list), then
            the next application the default line names. The daemon keeps the record
            whichever tool made it the default: each time it reads the defaults (when
            it starts, and whenever a mimeapps.list changes) it records, per type, the
            last default that was not openurld, because GNOME's and Plasma's settings
            panels write openurld alone. With no record, http and https go to the
            text/html default, then a web browser (Categories=WebBrowser) that claims
            them; other schemes to the first application that claims them.

            Given a MIME type (TYPE/SUBTYPE, aliases resolved) or a file (a PATH:
            absolute, ./, ../ or an existing file), default says which application
            would open it and why, opening nothing and without the daemon: the
            file's type and what decided it (the glob its name matches; when no
            glob matches, or the best globs disagree as *.ts does, the contents
            rules of the MIME database's magic file, read from at most its first
            64 KiB; then whether its first bytes are text), then whose default the
            application is (the type's, or its nearest parent type's). A file that
            would be refused (missing, another host's, or runnable by its name or
            its contents) is shown as refused, with the reason, and default exits 1.
            Each argument gets one line: the argument, the application, and in
            parentheses the type, what decided it and whose default it is.

            set-default makes openurld (org.openurld.Dispatcher1.desktop) the default
            x-scheme-handler for each SCHEME in $XDG_CONFIG_HOME/mimeapps.list, keeping
            the previous default listed right after it and in the record, and prints
            each change:

              http: firefox.desktop → org.openurld.Dispatcher1.desktop (firefox.desktop kept as fallback)

            --fallback=ID records ID as the application behind openurld instead (it
            must be installed). http and https are set together: KIO sends http:
            links to the https default.

            With --browser it sets what desktops set for the default web browser:
            x-scheme-handler/http, https, about and unknown, text/html and
            application/xhtml+xml (then `xdg-settings check default-web-browser
            org.openurld.Dispatcher1.desktop` answers yes). On KDE (or where it is
            set), BrowserApplication in the [General] group of
            $XDG_CONFIG_HOME/kdeglobals is set too: KIO opens web links with it
            before it reads mimeapps.list, and xdg-settings reports it there.

            unset-default removes openurld from those lines again; a line it leaves
            empty gets the recorded application back, and BrowserApplication names
            it again (or is removed).

            set-default refuses (exit status 1, nothing changed) unless the dispatcher
            is installed where the desktop finds it: its desktop file in an
            applications directory of $XDG_DATA_HOME or $XDG_DATA_DIRS, and its D-Bus
            service file in a dbus-1/services directory there. A default naming a
            desktop file that cannot be found is ignored, and links would bypass
            openurld.

            Only those lines change: every other line, group, comment and their order
            are kept byte for byte. The file is replaced atomically. A file that cannot
            be parsed is left alone, with an error.

            SCHEME defaults to http and https (to none with --browser).

            """,
        tail: """
            Exit status: 0 on success, 1 when the dispatcher (or the --fallback
            application) is not installed or mimeapps.list cannot be parsed or
            written, 2 on a usage error.

            """)

    static let targets = Page(
        name: "targets",
        head: """
            Usage: openurl targets [--json] [SCHEME]

            List the targets a URL of SCHEME (https when none is given) can be sent to,
            written as a rule's Open= takes them:

              firefox.desktop                     an application set up for SCHEME
              firefox.desktop:new-private-window  one of its desktop actions
              firefox.desktop@work                one of its browser profiles

            The default application comes first, then every other application set up
            for the scheme (from the mimeapps.list files and desktop entries, never
            openurld itself). Actions come from each desktop file's [Desktop Action]
            groups. Profiles are read from Firefox's profiles.ini and from the Local
            State file of Chromium, Chrome, Brave, Edge and Vivaldi, for native and
            Flatpak installs; a profile opens with the browser's own option (-P NAME,
            or --profile-directory=DIR).

            --json prints an array of {"target", "name", "kind"} objects.

            """,
        tail: """
            Exit status: 0 when there is a target, 1 when there is none.

            """)

    static let remembered = Page(
        name: "remembered",
        head: """
            Usage: openurl remembered [--json]
                   openurl forget HOST...

            The chooser (openurld-chooser) can remember an answer for a host, or for
            the host's whole domain. Each remembered answer is a rule in
            $XDG_CONFIG_HOME/openurld/rules.d/remembered.rules, named
            "remembered HOST" (or "remembered *.DOMAIN"), with Open= the target
            chosen and a priority just above the rule that asked, so that rules you
            wrote with a higher priority still come first. The file is plain rule
            syntax: edit it by hand if you like.

            remembered lists them (--json: an array of {"host", "schemes",
            "target"}). forget removes the answers remembered for each HOST (written
            as a browser would read it; *.DOMAIN and DOMAIN both remove the domain's
            rule); openurld notices the file change and reloads, and forget returns
            once the running openurld no longer has the rule (at most 2 s), so the
            next link to that host is asked about.

            """,
        tail: """
            Exit status: 0 on success, 1 when nothing was remembered for a HOST,
            2 on a usage error, 3 when the file cannot be written.

            """)

    static let status = Page(
        name: "status",
        head: """
            Usage: openurl status [--json]

            Show whether openurld runs on the session bus, its version, its bus name
            owner and how many handlers are registered.

            """,
        tail: """
            Exit status: 0 when it runs, 3 when it does not.

            """)
}
