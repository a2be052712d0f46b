import DispatcherAPI
import DBus
import Foundation
import Spawn
import Testing
import TestSupport

/// The GTK chooser, for real: an Xvfb display, a private bus that starts
/// `openurld-chooser --service` by D-Bus activation, the built daemon with
/// an `Ask=` rule, and a temporary XDG tree of recorders. The window is
/// found with `xdotool search --sync` (which waits for it to be mapped) and
/// driven with synthetic key presses (XTEST), never by sleeping.
@Suite(.serialized) struct ChooserWindowTests {
    struct Desk {
        let tree: XDGTree
        let environment: [String: String]

        func openurl(_ arguments: [String]) async throws -> CommandResult {
            try await run([Binaries.openurl] + arguments, environment: environment)
        }

        /// Waits for a chooser window (or another, by title) other than `earlier`
        /// to be mapped, and focuses it; returns its X window ID.
        func window(other earlier: String? = nil, named title: String = "^Open Link$") async throws -> String {
            for _ in 0..<200 {
                let found = try await run(["timeout", "20", "xdotool", "search", "--sync", "--onlyvisible", "--name", title], environment: environment)
                guard found.status == 0 else { throw FixtureError("no chooser window appeared: \(found.stderr)") }
                // An answered window may still be on screen for a moment while it is destroyed.
                if let id = found.stdout.split(separator: "\n").map(String.init).first(where: { $0 != earlier }) {
                    _ = try await run(["xdotool", "windowfocus", "--sync", id], environment: environment)
                    return id
                }
            }
            throw FixtureError("no new chooser window appeared")
        }

        /// Presses keys (xdotool names) in the window.
        func press(_ keys: String...) async throws {
            let pressed = try await run(["xdotool", "key", "--delay", "20"] + keys, environment: environment)
            #expect(pressed.status == 0, "\(pressed.stderr)")
        }

        /// Saves the window as a PNG once GTK has painted it and it has come
        /// to rest: mapped is not yet drawn, and a switch or a focus ring may
        /// still be animating, so captures are taken until two in a row are
        /// the same picture (and it has more than a blank window's few colours).
        func screenshot(_ id: String, as name: String) async throws {
            // Into the docs only when scripts/screenshots asks (on its fixed desk);
            // otherwise the capture is still made, and thrown away.
            let directory = ProcessInfo.processInfo.environment[ChooserWindowTests.screenshotsVariable] ?? tree.root + "/screenshots"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // No time stamps in the file: the same window gives the same bytes.
            func capture() async throws -> Data {
                let file = tree.root + "/capture.png"
                let shot = try await run(["sh", "-c", "xwd -silent -id \"$1\" | /usr/bin/convert xwd:- -strip -define png:exclude-chunks=date,time \"png:$2\"",
                                          "sh", id, file], environment: environment)
                #expect(shot.status == 0, "\(shot.stderr)")
                return (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            }
            var previous = Data()
            for _ in 0..<100 {
                let colours = try await run(["sh", "-c", "xwd -silent -id \"$1\" | /usr/bin/convert xwd:- -format %k info:", "sh", id], environment: environment)
                let painted = Int(colours.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 50
                let shot = try await capture()
                if painted, shot == previous { break }
                previous = shot
                try await Task.sleep(for: .milliseconds(100))
            }
            try previous.write(to: URL(fileURLWithPath: directory + "/" + name))
        }
    }

    /// - Parameter accessibility: give the bus the real accessibility bus
    ///   (at-spi-bus-launcher, by activation), so that AT-SPI can read the window.
    /// - Parameter setUp: changes to the tree made before the daemon starts (and reads the defaults).
    func withDesk(rules: String = "[Rule ask]\nPriority=-1000\nAsk=\n", accessibility: Bool = false, daemonArguments: [String] = [],
                  setUp: (XDGTree) throws -> Void = { _ in }, _ body: (Desk) async throws -> Void) async throws {
        try await withXvfb { x in
            try await withDesk(rules: rules, accessibility: accessibility, display: ["DISPLAY": x.display], daemonArguments: daemonArguments,
                               setUp: setUp, body)
        }
    }

    /// Where `scripts/screenshots` has the docs' screenshots written; unset, none are.
    static let screenshotsVariable = "OPENURLD_SCREENSHOTS"
    /// The fixed desk's root, when screenshots are taken for the docs.
    static let fixedDesk = "/tmp/openurld-desk"

    func withDesk(rules: String, accessibility: Bool, display: [String: String], daemonArguments: [String] = [],
                  setUp: (XDGTree) throws -> Void = { _ in }, _ body: (Desk) async throws -> Void) async throws {
        let forDocs = ProcessInfo.processInfo.environment[Self.screenshotsVariable] != nil
        let tree = try XDGTree(fixedRoot: forDocs ? Self.fixedDesk : nil)
        try tree.installBrowsers(profile: "work")
        try setUp(tree)
        try tree.write("config/openurld/rules.d/90-ask.rules", rules)
        var environment = tree.environment.merging(display) { $1 }
        if accessibility {
            try tree.write("services/org.a11y.Bus.service", try String(contentsOfFile: "/usr/share/dbus-1/services/org.a11y.Bus.service", encoding: .utf8))
        } else {
            // GTK looks for the accessibility bus on the session bus; this one has none to offer.
            environment["GTK_A11Y"] = "none"
        }
        environment["XDG_DATA_DIRS"] = (environment["XDG_DATA_DIRS"] ?? "") + ":/usr/share"
        try tree.write("services/org.openurld.Chooser1.service", """
            [D-BUS Service]
            Name=org.openurld.Chooser1
            Exec=\(Binaries.chooser) --service --idle-exit 5
            """)
        try await withPrivateBus(serviceDirectories: [tree.root + "/services"], environment: environment) { bus in
            let daemon = try await Binaries.startDaemon(on: bus, tree: tree, daemonArguments)
            defer { Binaries.stop(daemon) }
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            try await body(Desk(tree: tree, environment: environment))
        }
    }

    @Test func aKeyOpensTheChosenTargetWithItsProfile() async throws {
        try await withDesk { desk in
            async let opened = desk.openurl(["-v", "https://user@xn--bcher-kva.example/a?b=c"])
            let window = try await desk.window()
            try await desk.screenshot(window, as: "chooser.png")
            try await desk.press("4")
            let result = try await opened
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("handled (via openurld), firefox.desktop@work"), "\(result.stderr)")
            let records = try await desk.tree.waitForRecords(1)
            #expect(records.map { [$0.app] + $0.arguments } == [["firefox", "-P", "work", "https://user@xn--bcher-kva.example/a?b=c"]])
            // A fresh startup ID from the chooser's display, for the app it launched.
            #expect(records.first?.environment["DESKTOP_STARTUP_ID"]?.hasPrefix("openurld-chooser-") == true, "\(records.first?.environment ?? [:])")
        }
    }

    @Test func escapeMakesTheCallerSeeRejected() async throws {
        try await withDesk { desk in
            // The plain OpenURL, as any D-Bus peer calls it (gdbus, with a timeout longer than the chooser's).
            async let opened = run(["gdbus", "call", "--session", "--timeout", "600", "--dest", "org.openurld.Dispatcher1",
                                    "--object-path", "/org/openurld/Dispatcher1", "--method", "org.openurld.Dispatcher1.OpenURL",
                                    "https://example.com/"], environment: desk.environment)
            let first = try await desk.window()
            try await desk.press("Escape")
            let answer = try await opened
            #expect(answer.status == 0 && answer.stdout == "(false,)\n", "\(answer.stdout)\(answer.stderr)")
            #expect(desk.tree.recorded().isEmpty)
            async let cli = desk.openurl(["https://example.com/again"])
            _ = try await desk.window(other: first)
            try await desk.press("Escape")
            #expect(try await cli.status == 1, "openurl says rejected with its exit status")
        }
    }

    @Test func rememberWritesARuleAndTheNextURLIsNotAsked() async throws {
        try await withDesk { desk in
            async let opened = desk.openurl(["https://docs.example.com/first"])
            _ = try await desk.window()
            try await desk.press("alt+r", "Down", "Return")
            #expect(try await opened.status == 0)
            let rules = try String(contentsOfFile: desk.tree.root + "/config/openurld/rules.d/remembered.rules", encoding: .utf8)
            #expect(rules.contains("[Rule remembered docs.example.com]\nSchemes=http;https;\nHosts=docs.example.com;\nOpen=firefox.desktop\nPriority=-999\n"), "\(rules)")
            // The next URL to that host opens at once: no window, the same app.
            let again = try await desk.openurl(["-v", "https://docs.example.com/second"])
            #expect(again.status == 0 && again.stderr.contains("handled (via openurld), firefox.desktop"), "\(again.stderr)")
            // As a set: each recorder stamps its record when it runs, and two launched close together may run in either order.
            #expect(Set(try await desk.tree.waitForRecords(2).map { $0.arguments }) == [["https://docs.example.com/first"], ["https://docs.example.com/second"]])
            let listed = try await desk.openurl(["remembered"])
            #expect(listed.stdout.contains("docs.example.com") && listed.stdout.contains("firefox.desktop"), "\(listed.stdout)")
            let forgot = try await desk.openurl(["forget", "docs.example.com"])
            #expect(forgot.stdout == "forgot 'remembered docs.example.com'\n", "\(forgot.stdout)\(forgot.stderr)")
            // When forget returns, the daemon has dropped the rule: the next link is asked about.
            // (Asked from this process at once: another openurl would take longer than the reload.)
            let connection = try await Connection.connect(to: desk.environment["DBUS_SESSION_BUS_ADDRESS"]!)
            defer { connection.close() }
            let (loaded, _) = try await connection.call(
                DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.dispatcherInterface, DispatcherAPI.Member.listRules
            ).decode([[String: Variant]].self, [String].self)
            #expect(!loaded.contains { DispatcherAPI.RuleInfo(listed: $0).name == "remembered docs.example.com" })
        }
    }

    @Test func anEditedAddressIsTheOneOpened() async throws {
        try await withDesk { desk in
            async let opened = desk.openurl(["-v", "https://example.com/tracking?utm_source=x"])
            _ = try await desk.window()
            // Ctrl+L selects the address, typing replaces it, Enter opens with the selected (first) target.
            try await desk.press("ctrl+l")
            let typed = try await run(["xdotool", "type", "--delay", "5", "https://example.com/clean"], environment: desk.environment)
            #expect(typed.status == 0)
            try await desk.press("Return")
            let result = try await opened
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("https://example.com/tracking?utm_source=x → https://example.com/clean: handled"), "\(result.stderr)")
            #expect(try await desk.tree.waitForRecords(1).map { [$0.app] + $0.arguments } == [["browser", "https://example.com/clean"]])
        }
    }

    /// The host line, the warnings and Remember follow the address being
    /// edited (before, they stayed those of the first URL while the edited
    /// one opened); Esc undoes the edit, and a second Esc cancels.
    @Test func whatTheWindowSaysFollowsTheEditedAddress() async throws {
        try await withDesk(accessibility: true) { desk in
            let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
            struct Node: Decodable { let role: String; let name: String; let visible: Bool }
            func shown() async throws -> [String] {
                let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
                return try JSONDecoder().decode([Node].self, from: Data(dump.stdout.utf8)).filter(\.visible).map { $0.role + ": " + $0.name }
            }
            func wait(_ role: String, _ name: String) async throws {
                let found = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", role, name], environment: desk.environment)
                #expect(found.status == 0, "\(found.stderr)")
            }
            async let asked = desk.openurl(["https://docs.example.com/x"])
            _ = try await desk.window()
            try await wait("check box", "Remember for docs.example.com")
            try await desk.press("ctrl+l")
            #expect(try await run(["xdotool", "type", "--delay", "5", "http://xn--80ak6aa92e.com/login"], environment: desk.environment).status == 0)
            try await wait("label", "Link: http://xn--80ak6aa92e.com/login")
            let edited = try await shown()
            #expect(edited.contains("label: Warning: " + "Not encrypted: this link uses plain HTTP."), "\(edited)")
            #expect(edited.contains { $0.hasPrefix("label: Warning: This is not apple.com") }, "\(edited)")
            #expect(edited.contains("check box: Remember for xn--80ak6aa92e.com"), "\(edited)")
            #expect(!edited.contains("check box: Remember for docs.example.com"), "\(edited)")
            // Esc undoes the edit: the window is about the first URL again.
            try await desk.press("Escape")
            try await wait("label", "Link: https://docs.example.com/x")
            let undone = try await shown()
            #expect(!undone.contains { $0.hasPrefix("label: Warning:") }, "\(undone)")
            #expect(undone.contains("check box: Remember for docs.example.com"), "\(undone)")
            // The second Esc cancels.
            try await desk.press("Escape")
            #expect(try await asked.status == 1)

            // Remember applies to the host that opens, the edited one.
            async let opened = desk.openurl(["https://docs.example.com/y"])
            _ = try await desk.window()
            try await desk.press("ctrl+l")
            #expect(try await run(["xdotool", "type", "--delay", "5", "https://wiki.other.example/page"], environment: desk.environment).status == 0)
            try await wait("check box", "Remember for wiki.other.example")
            try await desk.press("alt+r", "ctrl+l", "Return")
            #expect(try await opened.status == 0)
            let rules = try String(contentsOfFile: desk.tree.root + "/config/openurld/rules.d/remembered.rules", encoding: .utf8)
            #expect(rules.contains("Hosts=wiki.other.example;\n"), "\(rules)")
            #expect(!rules.contains("docs.example.com"), "\(rules)")
            #expect(try await desk.tree.waitForRecords(1).map(\.arguments) == [["https://wiki.other.example/page"]])
        }
    }

    @Test func thePreferencesWindowShowsRulesAndRememberedChoices() async throws {
        try await withDesk(rules: "[Rule ask]\nPriority=-1000\nAsk=\n\n[Rule broken]\nHosts=a b\nResult=handled\n", accessibility: true) { desk in
            try desk.tree.write("config/openurld/rules.d/remembered.rules", """
                [Rule remembered example.org]
                Schemes=http;https;
                Hosts=example.org;
                Open=firefox.desktop@work
                Priority=-999
                """)
            let pid = try spawn(Binaries.chooser, arguments: ["openurld-chooser"], environment: desk.environment.map { "\($0.key)=\($0.value)" })
            defer { Binaries.stop(pid) }
            let found = try await run(["timeout", "20", "xdotool", "search", "--sync", "--onlyvisible", "--name", "^Link Chooser$"], environment: desk.environment)
            let window = try #require(found.stdout.split(separator: "\n").first.map(String.init), "\(found.stderr)")
            try await desk.screenshot(window, as: "preferences.png")
            // What it shows, read through the accessibility tree.
            let dump = try await run(["/usr/bin/python3", Binaries.repository + "/Tests/Peers/atspi.py", "openurld-chooser", "tree"],
                                     environment: desk.environment)
            #expect(dump.status == 0, "\(dump.stderr)")
            let shown = dump.stdout
            for expected in ["openurld is not your default browser", "Make Default", "example.org", "Opens with firefox.desktop@work",
                             "Forget", "ask, offering every target", "Problem", "host pattern 'a b'", "/config/openurld/rules.d"] {
                #expect(shown.contains(expected), "the preferences window does not show '\(expected)'")
            }
            #expect(!shown.contains("\"remembered example.org\""), "remembered choices are listed apart from the rules")
            // One name, the application grid's; every control named as a person would say it.
            struct Node: Decodable { let role: String; let name: String; let visible: Bool }
            let nodes = try JSONDecoder().decode([Node].self, from: Data(shown.utf8))
            #expect(nodes.contains { $0.role == "frame" && $0.name == "Link Chooser" })
            let controls = nodes.filter { $0.visible && ["push button", "entry", "check box", "text"].contains($0.role) }
            // GTK 4 marks only windows "showing"; a filter on it once left this loop nothing to check.
            #expect(controls.count >= 5, "\(controls.count) controls found")
            for control in controls {
                #expect(!control.name.isEmpty && !control.name.hasPrefix("Gtk") && !control.name.hasPrefix("Adw"),
                        "a \(control.role) is named '\(control.name)'")
            }
        }
    }

    /// Forget rebuilds the list; the keyboard focus stays in it, on the next
    /// Forget (before, it jumped to the top of the window), and on the
    /// placeholder once the list is empty.
    @Test func forgetKeepsTheFocusInTheList() async throws {
        try await withDesk(accessibility: true) { desk in
            try desk.tree.write("config/openurld/rules.d/remembered.rules", ["a.example", "b.example"].map {
                "[Rule remembered \($0)]\nSchemes=http;https;\nHosts=\($0);\nOpen=firefox.desktop\nPriority=-999\n"
            }.joined(separator: "\n"))
            let pid = try spawn(Binaries.chooser, arguments: ["openurld-chooser"], environment: desk.environment.map { "\($0.key)=\($0.value)" })
            defer { Binaries.stop(pid) }
            _ = try await desk.window(named: "^Link Chooser$")
            let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
            struct Node: Decodable { let role: String; let name: String; let description: String; let focused: Bool }
            /// The focused node, once it is the one wanted (AT-SPI hears of focus changes a moment later).
            func focused(_ wanted: (Node) -> Bool) async throws -> Node? {
                var last: Node?
                for _ in 0..<40 {
                    let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
                    // A read that met the page being rebuilt (a node gone between two questions) is read again.
                    guard dump.status == 0, let nodes = try? JSONDecoder().decode([Node].self, from: Data(dump.stdout.utf8)) else { continue }
                    last = nodes.first(where: \.focused)
                    if let last, wanted(last) { return last }
                }
                return last
            }
            let forgetA = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "do-described", "push button", "Forget the choice for a.example"],
                                        environment: desk.environment)
            #expect(forgetA.status == 0, "\(forgetA.stderr)")
            let next = try await focused { $0.description == "Forget the choice for b.example" }
            #expect(next?.description == "Forget the choice for b.example", "focus is on \(String(describing: next))")
            let forgetB = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "do-described", "push button", "Forget the choice for b.example"],
                                        environment: desk.environment)
            #expect(forgetB.status == 0, "\(forgetB.stderr)")
            let placeholder = try await focused { $0.name.contains("Nothing remembered yet") }
            #expect(placeholder?.name.contains("Nothing remembered yet") == true, "focus is on \(String(describing: placeholder))")
        }
    }

    /// Esc and Ctrl+W close the preferences window, as they close a dialog.
    @Test(arguments: ["Escape", "ctrl+w"])
    func aKeyClosesThePreferencesWindow(key: String) async throws {
        try await withDesk { desk in
            let pid = try spawn(Binaries.chooser, arguments: ["openurld-chooser"], environment: desk.environment.map { "\($0.key)=\($0.value)" })
            defer { Binaries.stop(pid) }
            _ = try await desk.window(named: "^Link Chooser$")
            try await desk.press(key)
            // Closing the window ends the program; it exits 0.
            #expect(reap(pid, within: .seconds(10)) == 0, "\(key) did not close the window")
        }
    }

    /// The window's height on screen, as the X server has it.
    func height(of window: String, _ desk: Desk) async throws -> Int {
        let geometry = try await run(["xdotool", "getwindowgeometry", window], environment: desk.environment).stdout
        let size = geometry.split(separator: "\n").first { $0.contains("Geometry:") }?.split(separator: " ").last ?? ""
        return Int(size.split(separator: "x").last ?? "") ?? .max
    }

    /// Thirty-eight targets, or a 5 000-character URL, on an 800×600 screen:
    /// the window stays on it (the list scrolls, the address shows three
    /// lines), and its buttons still work.
    @Test(arguments: ["many targets", "long URL"])
    func theWindowNeverGrowsPastTheScreen(case name: String) async throws {
        try await withDesk(setUp: { tree in
            if name == "many targets" {
                for index in 0..<34 { try tree.app("app\(index).desktop", schemes: ["https"]) }
            }
        }) { desk in
            // A long URL as they come: a redirect carrying another URL and its tracking, 5 000 characters.
            let long = "https://shop.example.com/checkout/confirm?return=https%3A%2F%2Fshop.example.com%2Fcart&"
                + String(repeating: "utm_source=newsletter&utm_medium=email&utm_campaign=winter&session=8f3a9c1e77d24b&", count: 60)
            let url = name == "long URL" ? String(long.prefix(5000)) : "https://example.com/many"
            async let opened = desk.openurl([url])
            let window = try await desk.window()
            #expect(try await height(of: window, desk) <= 600)
            if name == "long URL" { try await desk.screenshot(window, as: "long-url.png") }
            // Enter opens the selected (first) target: what is below the list is still there.
            try await desk.press("Return")
            #expect(try await opened.status == 0)
            #expect(try await desk.tree.waitForRecords(1).first?.arguments == [url])
        }
    }

    /// Moving the focus never changes the choice: Tab leaves the list for
    /// the address field, and Enter there opens the target still selected.
    @Test(arguments: [["Down", "Tab", "Return"], ["Down", "Tab", "shift+Tab", "Return"], ["Down", "shift+Tab", "Return"]])
    func tabNeverChangesTheChosenTarget(keys: [String]) async throws {
        try await withDesk { desk in
            async let opened = desk.openurl(["-v", "https://docs.example.com/tab"])
            _ = try await desk.window()
            // firefox selected; then Tab (or back with Shift+Tab); then Enter.
            let pressed = try await run(["xdotool", "key", "--delay", "20"] + keys, environment: desk.environment)
            #expect(pressed.status == 0)
            let result = try await opened
            #expect(result.status == 0, "\(result.stderr)")
            let records = try await desk.tree.waitForRecords(1).map { [$0.app] + $0.arguments }
            #expect(records == [["firefox", "https://docs.example.com/tab"]], "\(records) \(result.stderr)")
        }
    }

    /// With Remember ticked, Use Default is off (it would remember nothing,
    /// and say nothing), and says why: pressing it (through AT-SPI) does
    /// nothing, and Esc still cancels.
    @Test func useDefaultIsOffWhileRememberIsTicked() async throws {
        try await withDesk(accessibility: true) { desk in
            async let opened = desk.openurl(["https://docs.example.com/remember"])
            _ = try await desk.window()
            try await desk.press("alt+r")
            let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
            let said = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", "push button", "Use Default (browser)"], environment: desk.environment)
            #expect(said.status == 0, "\(said.stderr)")
            let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
            #expect(dump.stdout.contains("Remember keeps a target for this host; untick it to use the default"), "Use Default does not say why it is off: \(dump.stderr)")
            _ = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "do", "push button", "Use Default (browser)"], environment: desk.environment)
            try await desk.press("Escape")
            #expect(try await opened.status == 1, "Use Default went ahead with Remember ticked")
            #expect(desk.tree.recorded().isEmpty)
        }
    }

    /// Nobody answering is one outcome with one message, whether the chooser
    /// was started by the question (cold) or already running (warm): the
    /// window closes just before the daemon stops waiting and says so, and
    /// it is gone by the time the caller hears. Before, a warm chooser's
    /// timeout read as Esc ("discarded"), a cold one's as libdbus's "Did not
    /// receive a reply", and the window outlived the wait by about 0.5 s.
    @Test func nobodyAnsweringIsOneOutcomeAndTheWindowCloses() async throws {
        try await withDesk(daemonArguments: ["--chooser-deadline", "3"]) { desk in
            for round in ["cold", "warm"] {
                async let opened = desk.openurl(["-v", "https://\(round).example/"])
                _ = try await desk.window()
                let result = try await opened
                #expect(result.status == 1, "\(round): \(result.stderr)")
                #expect(result.stderr.contains("undecided") && result.stderr.contains("nobody answered the chooser within 3 s"),
                        "\(round): \(result.stderr)")
                let left = try await run(["xdotool", "search", "--onlyvisible", "--name", "^Open Link$"], environment: desk.environment)
                #expect(left.status != 0, "\(round): the window outlived the daemon's wait")
            }
            #expect(desk.tree.recorded().isEmpty)
        }
    }

    /// Two questions at once: each window says another link is waiting, and
    /// each answer goes to its own link.
    @Test func twoQuestionsAtOnceEachSayTheOtherWaits() async throws {
        try await withDesk(accessibility: true) { desk in
            async let first = desk.openurl(["https://first.example/"])
            let older = try await desk.window()
            async let second = desk.openurl(["https://second.example/"])
            let newer = try await desk.window(other: older)
            let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
            let waiting = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", "label", "1 more link waiting"], environment: desk.environment)
            #expect(waiting.status == 0, "\(waiting.stderr)")
            try await desk.screenshot(newer, as: "two-questions.png")
            let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
            struct Node: Decodable { let role: String; let name: String }
            let labels = try JSONDecoder().decode([Node].self, from: Data(dump.stdout.utf8)).filter { $0.role == "label" }.map(\.name)
            #expect(labels.filter { $0 == "1 more link waiting" }.count == 2, "\(labels)")
            // Esc in the newer window cancels the second link only; the older one then waits alone.
            _ = try await run(["xdotool", "windowfocus", "--sync", newer], environment: desk.environment)
            try await desk.press("Escape")
            #expect(try await second.status == 1)
            let alone = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
            #expect(!alone.stdout.contains("more link waiting"), "the remaining window still says another waits")
            _ = try await run(["xdotool", "windowfocus", "--sync", older], environment: desk.environment)
            try await desk.press("Return")
            #expect(try await first.status == 0)
            #expect(try await desk.tree.waitForRecords(1).map(\.arguments) == [["https://first.example/"]])
        }
    }

    /// The buttons' Alt keys, as their underlined letters say: Alt+O opens
    /// with the selected target, Alt+C cancels, Alt+D uses the default.
    @Test(arguments: [("alt+o", 0, "handled (via openurld), browser.desktop"), ("alt+c", 1, "discarded (via openurld)"),
                      ("alt+d", 0, "opened (via openurld), browser.desktop")])
    func eachButtonsAltKeyPressesIt(key: String, status: Int32, said: String) async throws {
        try await withDesk { desk in
            async let opened = desk.openurl(["-v", "https://docs.example.com/alt"])
            _ = try await desk.window()
            try await desk.press(key)
            let result = try await opened
            #expect(result.status == status && result.stderr.contains(said), "\(key): \(result.stderr)")
        }
    }

    /// A whole-script look-alike (all Cyrillic, so nothing is mixed) sent in
    /// Unicode is shown in ASCII wherever the window names the host, and
    /// the window says which site it is not. Before, the bold host read as
    /// apple.com and the warning said "it reads as аррӏе.com".
    @Test func aLookAlikeHostIsShownInASCII() async throws {
        try await withDesk(accessibility: true) { desk in
            async let opened = desk.openurl(["https://аррӏе.com/login"])
            let window = try await desk.window()
            let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
            let shown = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", "label", "Link: https://xn--80ak6aa92e.com/login"],
                                      environment: desk.environment)
            #expect(shown.status == 0, "\(shown.stderr)")
            let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
            struct Node: Decodable { let role: String; let name: String }
            let names = try JSONDecoder().decode([Node].self, from: Data(dump.stdout.utf8)).map { $0.role + ": " + $0.name }
            #expect(names.contains("label: Warning: This is not apple.com: its letters only look like it. Its real name is xn--80ak6aa92e.com."), "\(names)")
            #expect(names.contains("check box: Remember for xn--80ak6aa92e.com"), "\(names)")
            #expect(!names.contains { $0.contains("аррӏе") }, "the look-alike is named somewhere: \(names.filter { $0.contains("аррӏе") })")
            try await desk.screenshot(window, as: "lookalike.png")
            // The address field too: it once read "https://apple.com/login", in Cyrillic. Ctrl+L
            // selects what it shows, Ctrl+C (the field's own) copies that, as a person would.
            try await desk.press("ctrl+l", "ctrl+c")
            let copied = try await run(["timeout", "5", "xclip", "-o", "-selection", "clipboard"], environment: desk.environment)
            #expect(copied.stdout == "https://xn--80ak6aa92e.com/login", "\(copied.stdout)\(copied.stderr)")
            try await desk.press("Escape")
            #expect(try await opened.status == 1)
        }
    }

    /// A host is shown as it is: no `_` of `my_site` taken for a mnemonic.
    @Test func noLabelMadeOfPeerTextIsReadForMnemonics() async throws {
        // The default's name, on Use Default, is an application's text too.
        try await withDesk(accessibility: true, setUp: { tree in
            let path = tree.root + "/data/applications/browser.desktop"
            let entry = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "Name=browser\n", with: "Name=<b>My_Browser</b>\n")
            try tree.write("data/applications/browser.desktop", entry)
        }) { desk in
            async let opened = desk.openurl(["https://my_site.example.com/a_b"])
            let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
            let appeared = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", "frame", "Open Link"], environment: desk.environment)
            #expect(appeared.status == 0, "\(appeared.stderr)")
            let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
            struct Node: Decodable { let role: String; let name: String }
            let nodes = try JSONDecoder().decode([Node].self, from: Data(dump.stdout.utf8))
            // The check box's label, as drawn (its accessible name is set apart from it).
            #expect(nodes.contains { $0.role == "label" && $0.name == "Remember for my_site.example.com" }, "\(nodes.filter { $0.role == "label" }.map(\.name))")
            #expect(!nodes.contains { $0.name.contains("mysite") })
            #expect(nodes.contains { $0.role == "push button" && $0.name == "Use Default (<b>My_Browser</b>)" }, "\(nodes.filter { $0.role == "push button" }.map(\.name))")
            let cancel = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "do", "push button", "Cancel"], environment: desk.environment)
            #expect(cancel.status == 0, "\(cancel.stderr)")
            #expect(try await opened.status == 1)
        }
    }

    /// With openurld the default browser, the window says where links no
    /// rule decides go (openurld's record, and why), lets the person pick
    /// another, and turns failure notifications off; each choice is kept in
    /// its file.
    @Test func thePreferencesWindowShowsAndChangesTheBrowserBehindTheDispatcher() async throws {
        try await withDesk(accessibility: true, setUp: { tree in
            try tree.app("org.openurld.Dispatcher1.desktop", schemes: ["http", "https"], exec: "openurl %U", extra: "DBusActivatable=true")
            try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop\n")
            try tree.write("state/openurld/previous-defaults.list", "[Previous Defaults]\nx-scheme-handler/https=firefox.desktop\n")
        }) { desk in
            let pid = try spawn(Binaries.chooser, arguments: ["openurld-chooser"], environment: desk.environment.map { "\($0.key)=\($0.value)" })
            defer { Binaries.stop(pid) }
            let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
            let appeared = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", "label", "Links No Rule Decides Open In"],
                                         environment: desk.environment)
            #expect(appeared.status == 0, "\(appeared.stderr)")
            let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
            for expected in ["openurld is your default browser", "Links No Rule Decides Open In", "Now firefox: the default before openurld",
                             "\"list item\", \"name\": \"firefox\"", "Opens the links no rule decides", "\"push button\", \"name\": \"Use\", \"description\": \"Open the links no rule decides in browser\"",
                             "\"check box\", \"name\": \"Show links that could not be opened\""] {
                #expect(dump.stdout.contains(expected), "the preferences window does not show '\(expected)'")
            }
            // The switch, through AT-SPI: the setting is written.
            let toggled = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "do", "check box", "Show links that could not be opened"],
                                        environment: desk.environment)
            #expect(toggled.status == 0, "\(toggled.stderr)")
            let conf = desk.tree.root + "/config/openurld/openurld.conf"
            for _ in 0..<500 where !((try? String(contentsOfFile: conf, encoding: .utf8)) ?? "").contains("Failures=false") {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect((try? String(contentsOfFile: conf, encoding: .utf8)) == "[Notifications]\nFailures=false\n")
            // Another browser, picked through AT-SPI.
            let picked = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "do-described", "push button", "Open the links no rule decides in browser"],
                                       environment: desk.environment)
            #expect(picked.status == 0, "\(picked.stderr)")
            let record = desk.tree.root + "/state/openurld/previous-defaults.list"
            for _ in 0..<500 where !((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").contains("https=browser.desktop") {
                try await Task.sleep(for: .milliseconds(10))
            }
            let recorded = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
            #expect(recorded.contains("x-scheme-handler/https=browser.desktop") && recorded.contains("x-scheme-handler/http=browser.desktop"), "\(recorded)")
            #expect(try await desk.openurl(["default", "https"]).stdout == "https  browser.desktop  (the default before openurld)\n")
        }
    }

    /// Through the accessibility tree, as a screen reader sees it: every
    /// control is named, and the window can be used through AT-SPI alone.
    @Test func everyControlHasAnAccessibleNameAndAnswersAtSPI() async throws {
        try await withDesk(accessibility: true) { desk in
            async let opened = desk.openurl(["https://docs.example.com/"])
            _ = try await desk.window()
            let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
            let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
            #expect(dump.status == 0, "\(dump.stderr)")
            struct Node: Decodable { let role: String; let name: String; let description: String; let actions: [String] }
            let nodes = try JSONDecoder().decode([Node].self, from: Data(dump.stdout.utf8))
            let named = Set(nodes.map { "\($0.role): \($0.name)" })
            for expected in ["frame: Open Link", "label: Link: https://docs.example.com/", "list: Open with", "text: Link address",
                             "list item: firefox (work)", "check box: Remember for docs.example.com",
                             "check box: Remember for all of example.com", "push button: Cancel", "push button: Use Default (browser)", "push button: Open"] {
                #expect(named.contains(expected), "\(expected) is not in \(named.sorted())")
            }
            for control in nodes where ["push button", "check box", "list item", "text", "list"].contains(control.role) {
                #expect(!control.name.isEmpty, "a \(control.role) has no accessible name")
            }
            // The targets the Ask= rule offers, in order: the default, the others, their actions and profiles.
            #expect(nodes.filter { $0.role == "list item" }.map(\.name) == ["browser", "firefox", "firefox: New Private Window", "firefox (work)"])
            #expect(nodes.contains { $0.role == "list item" && $0.name == "firefox (work)" && $0.description == "key 4" })
            // Use Default says where it goes, and the default is marked among the targets.
            #expect(nodes.contains { $0.role == "list item" && $0.name == "browser" && $0.description == "the default, key 1" })
            #expect(nodes.contains { $0.role == "push button" && $0.name == "Use Default (browser)"
                && $0.description == "Open the link as if nobody had asked: with browser, the default" })
            #expect(nodes.contains { $0.role == "label" && $0.name == "Default" })
            // Cancel, pressed through AT-SPI: the caller is told the link was not opened.
            let cancel = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "do", "push button", "Cancel"], environment: desk.environment)
            #expect(cancel.status == 0, "\(cancel.stderr)")
            #expect(try await opened.status == 1)
            #expect(desk.tree.recorded().isEmpty)
        }
    }

    /// Under weston's kiosk shell, read and answered through the
    /// accessibility tree: a look-alike host in ASCII with what it is not,
    /// Use Default naming the default, two questions each saying the other
    /// waits, and a question nobody answers closing with one message.
    @Test func onWaylandTheWindowSaysTheTruthAndClosesInTime() async throws {
        try await withWeston { weston in
            let wayland = ["WAYLAND_DISPLAY": weston.display, "XDG_RUNTIME_DIR": weston.runtimeDirectory, "GDK_BACKEND": "wayland"]
            try await withDesk(rules: "[Rule ask]\nPriority=-1000\nAsk=\n", accessibility: true, display: wayland,
                               daemonArguments: ["--chooser-deadline", "4"]) { desk in
                let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
                func tree() async throws -> [String] {
                    struct Node: Decodable { let role: String; let name: String }
                    let dump = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "tree"], environment: desk.environment)
                    return try JSONDecoder().decode([Node].self, from: Data(dump.stdout.utf8)).map { $0.role + ": " + $0.name }
                }
                async let lookAlike = desk.openurl(["-v", "https://аррӏе.com/login"])
                let first = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", "label", "Link: https://xn--80ak6aa92e.com/login"],
                                          environment: desk.environment)
                #expect(first.status == 0, "\(first.stderr)")
                async let other = desk.openurl(["-v", "https://docs.example.com/other"])
                let waiting = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", "label", "1 more link waiting"], environment: desk.environment)
                #expect(waiting.status == 0, "\(waiting.stderr)")
                let names = try await tree()
                #expect(names.contains { $0.hasPrefix("label: Warning: This is not apple.com") }, "\(names)")
                #expect(!names.contains { $0.contains("аррӏе") })
                #expect(names.filter { $0 == "push button: Use Default (browser)" }.count == 2, "\(names)")
                #expect(names.filter { $0 == "label: 1 more link waiting" }.count == 2, "\(names)")
                // Nobody answers: both windows close just before the daemon stops waiting, and say so alike.
                for result in [try await lookAlike, try await other] {
                    #expect(result.status == 1 && result.stderr.contains("nobody answered the chooser within 4 s"), "\(result.stderr)")
                }
                #expect(!(try await tree()).contains("frame: Open Link"), "a window outlived the daemon's wait")
            }
        }
    }

    /// On Wayland (weston's headless backend), where no X tool can see the
    /// window: found and answered through the accessibility tree.
    @Test func onWaylandTheWindowIsFoundAndAnsweredThroughAtSPI() async throws {
        try await withWeston { weston in
            let wayland = ["WAYLAND_DISPLAY": weston.display, "XDG_RUNTIME_DIR": weston.runtimeDirectory, "GDK_BACKEND": "wayland"]
            // An ordinary desk's eight targets and more: under the kiosk shell (1024×640, fullscreen) the window must fit.
            try await withDesk(rules: "[Rule ask]\nAsk=firefox.desktop@work;browser.desktop;app0.desktop;app1.desktop;app2.desktop;app3.desktop;app4.desktop;app5.desktop\n",
                               accessibility: true, display: wayland, setUp: { tree in
                for index in 0..<6 { try tree.app("app\(index).desktop", schemes: ["https"]) }
            }) { desk in
                async let opened = desk.openurl(["-v", "https://docs.example.com/w"])
                let atspi = Binaries.repository + "/Tests/Peers/atspi.py"
                let appeared = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "wait", "frame", "Open Link"], environment: desk.environment)
                #expect(appeared.status == 0, "\(appeared.stderr)")
                // The rule's own list, in its order; Open takes the selected (first) one.
                let open = try await run(["/usr/bin/python3", atspi, "openurld-chooser", "do", "push button", "Open"], environment: desk.environment)
                #expect(open.status == 0, "\(open.stderr)")
                let result = try await opened
                #expect(result.status == 0 && result.stderr.contains("firefox.desktop@work"), "\(result.stderr)")
                #expect(try await desk.tree.waitForRecords(1).map { [$0.app] + $0.arguments } == [["firefox", "-P", "work", "https://docs.example.com/w"]])
            }
        }
    }
}
