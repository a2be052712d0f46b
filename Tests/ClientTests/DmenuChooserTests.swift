import ChooserService
import DBus
import DispatcherAPI
import Foundation
import Glibc
import Router
import Routing
import Spawn
import Synchronization
import Testing
import TestSupport

/// `Ask=` through the real daemon, the real `org.openurld.Chooser1` service
/// (`openurld-chooser-dmenu`, started by D-Bus activation) and a scripted
/// dmenu: the script records the lines it was offered and prints the one the
/// test picked, or exits 1 as Esc does.
@Suite(.serialized) struct DmenuChooserTests {
    static let menu = """
        #!/bin/sh
        cat > "$RECORDS/menu-input"
        printf '%s\\n' "$@" > "$RECORDS/menu-arguments"
        pick=$(cat "$RECORDS/../pick")
        [ "$pick" = esc ] && exit 1
        sed -n "${pick}p" "$RECORDS/menu-input"
        """

    func withChooser(askRule: Bool = true, _ body: (_ tree: XDGTree, _ openurl: @escaping (String...) async throws -> CommandResult) async throws -> Void) async throws {
        let tree = try XDGTree()
        try tree.installBrowsers(profile: "Work Stuff")
        try tree.write("bin/menu", Self.menu, executable: true)
        if askRule {
            try tree.write("config/openurld/rules.d/90-ask.rules", """
                # Ask when no other rule decided.
                [Rule ask]
                Priority=-1000
                Ask=
                """)
        }
        try tree.write("services/org.openurld.Chooser1.service", """
            [D-BUS Service]
            Name=org.openurld.Chooser1
            Exec=\(Binaries.dmenuChooser) --idle-exit 2 -- \(tree.root)/bin/menu --prompt 'Open %h with'
            """)
        try await withPrivateBus(serviceDirectories: [tree.root + "/services"], environment: tree.environment) { bus in
            let daemon = try await Binaries.startDaemon(on: bus, tree: tree)
            defer { Binaries.stop(daemon) }
            var environment = tree.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            try await body(tree) { (arguments: String...) in try await run([Binaries.openurl] + arguments, environment: environment) }
        }
    }

    @Test func theMenuOffersEveryTargetAndItsChoiceIsOpened() async throws {
        try await withChooser { tree, openurl in
            try tree.write("pick", "3")
            let opened = try await openurl("-v", "https://example.com/a b".replacingOccurrences(of: " ", with: "%20"))
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(opened.stderr.contains("handled (via openurld)"), "\(opened.stderr)")
            let offered = try String(contentsOfFile: tree.records + "/menu-input", encoding: .utf8)
            #expect(offered == """
                browser  [browser.desktop]
                firefox  [firefox.desktop]
                firefox: New Private Window  [firefox.desktop:new-private-window]
                firefox (Work Stuff)  [firefox.desktop@Work Stuff]
                Use the default application (browser)

                """)
            let prompt = try String(contentsOfFile: tree.records + "/menu-arguments", encoding: .utf8)
            #expect(prompt == "--prompt\nOpen example.com with\n")
            // Printable text only: every menu draws it as it is (real dmenu drew a tab as a box).
            #expect(!offered.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
            let records = try await tree.waitForRecords(1)
            #expect(records.map { [$0.app] + $0.arguments } == [["firefox-private", "--private-window", "https://example.com/a%20b"]])
        }
    }

    @Test func escapeRejectsAndTheDefaultLinePassesOn() async throws {
        try await withChooser { tree, openurl in
            try tree.write("pick", "esc")
            let cancelled = try await openurl("-v", "https://example.com/x")
            #expect(cancelled.status == 1, "\(cancelled.stderr)")
            #expect(cancelled.stderr.contains("discarded (via openurld)"), "\(cancelled.stderr)")
            #expect(tree.recorded().isEmpty)

            try tree.write("pick", "5")
            let passed = try await openurl("-v", "https://example.com/y")
            #expect(passed.status == 0, "\(passed.stderr)")
            #expect(passed.stderr.contains("opened (via openurld), browser.desktop"), "\(passed.stderr)")
            #expect(try await tree.waitForRecords(1).map(\.app) == ["browser"])
        }
    }

    /// More applications than one question can offer: the person is still
    /// asked, with the first 256 (the default first), and told how many were left out.
    @Test func threeHundredApplicationsStillAsk() async throws {
        try await withChooser { tree, openurl in
            for index in 0..<300 { try tree.app(String(format: "app%03d.desktop", index), schemes: ["https"]) }
            try tree.write("pick", "1")
            let opened = try await openurl("-v", "https://many.example/")
            #expect(opened.status == 0, "\(opened.stderr)")
            let offered = try String(contentsOfFile: tree.records + "/menu-input", encoding: .utf8).split(separator: "\n")
            #expect(offered.count == 256 + 1, "256 targets and the default line")
            #expect(offered.first == "browser  [browser.desktop]", "the default stays first")
        }
        let request = ChoiceRequest(
            url: try ValidatedURL("https://many.example/"),
            candidates: (0..<300).map { ChooserCandidate(target: .application("a\($0).desktop"), name: "A\($0)", icon: "") })
        #expect(request.candidates.count == 256 && request.omitted == 44)
        #expect(try DispatcherAPI.ChooserRequest(arguments: DispatcherAPI.ChooserRequest(request).arguments).choice.omitted == 44)
    }

    @Test func askFirstShowsTheMenuWithoutARule() async throws {
        // No rule asks: only --ask can show the menu (without it, browser.desktop would open the URL).
        try await withChooser(askRule: false) { tree, openurl in
            try tree.write("pick", "4")
            let opened = try await openurl("--ask", "https://example.org/")
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(try await tree.waitForRecords(1).map { [$0.app] + $0.arguments } == [["firefox", "-P", "Work Stuff", "https://example.org/"]])
        }
    }

    /// `openurld-chooser-dmenu` on a private bus, with `true` as its menu (it
    /// prints nothing: every request is cancelled), once it owns its name.
    func withDmenuService(_ body: (PrivateBus, Connection) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let pid = try spawn(Binaries.dmenuChooser, arguments: ["openurld-chooser-dmenu", "--address", bus.address, "--", "true"],
                                environment: ["PATH=/usr/bin:/bin"], stderr: .inherit)
            defer { Binaries.stop(pid) }
            let client = try await bus.connect()
            defer { client.close() }
            for _ in 0..<500 where try await client.owner(of: "org.openurld.Chooser1") == nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await body(bus, client)
        }
    }

    /// Idle, the chooser gives its name back and exits: D-Bus activation
    /// starts it again for the next question.
    @Test func anIdleChooserExits() async throws {
        try await withPrivateBus { bus in
            let pid = try spawn(Binaries.dmenuChooser, arguments: ["openurld-chooser-dmenu", "--address", bus.address, "--idle-exit", "0.3", "--", "true"],
                                environment: ["PATH=/usr/bin:/bin"], stderr: .inherit)
            let status = reap(pid, within: .seconds(10))
            if status == nil { Binaries.stop(pid) }
            #expect(status == 0, "exit status \(String(describing: status))")
            let client = try await bus.connect()
            defer { client.close() }
            #expect(try await client.owner(of: "org.openurld.Chooser1") == nil)
        }
    }

    /// SIGTERM (the session ending) makes the chooser leave as the daemon
    /// does: it says so and exits 0.
    @Test func sigtermEndsTheChooserWithStatusZero() async throws {
        try await withPrivateBus { bus in
            let log = try makeTemporaryDirectory(prefix: "openurld-dmenu") + "/stderr"
            let fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            defer { close(fd) }
            let pid = try spawn(Binaries.dmenuChooser, arguments: ["openurld-chooser-dmenu", "--address", bus.address, "--", "true"],
                                environment: ["PATH=/usr/bin:/bin"], stderr: .descriptor(fd))
            let client = try await bus.connect()
            defer { client.close() }
            while try await client.owner(of: "org.openurld.Chooser1") == nil { try await Task.sleep(for: .milliseconds(10)) }
            kill(pid, SIGTERM)
            let status = reap(pid, within: .seconds(10))
            if status == nil { Binaries.stop(pid) }
            #expect(status == 0, "exit status \(String(describing: status))")
            #expect(try String(contentsOfFile: log, encoding: .utf8).contains("<6>openurld-chooser-dmenu: received SIGTERM; exiting"))
        }
    }

    /// The prompt says what the window says, as far as one line can: the
    /// link shortened with its host whole, its warnings in brief, hosts
    /// through the same display policy.
    @Test(arguments: [
        ("https://example.com/a", "Open https://example.com/a with"),
        ("http://example.com/", "⚠ not encrypted: Open http://example.com/ with"),
        ("https://аррӏе.com/login", "⚠ NOT apple.com: Open https://xn--80ak6aa92e.com/login with"),
        ("https://bank.example@evil.example/", "⚠ goes to evil.example: Open https://bank.example@evil.example/ with"),
        ("https://example.com/" + String(repeating: "a", count: 200) + "z",
         "Open https://example.com/" + String(repeating: "a", count: 25) + "…" + String(repeating: "a", count: 13) + "z with"),
        ("https://example.com/%u%h%w%", "Open https://example.com/%u%h%w% with"),
    ])
    func thePromptShowsTheLinkAndItsWarnings(url: String, prompt: String) throws {
        let request = ChoiceRequest(url: try ValidatedURL(url), candidates: [ChooserCandidate(target: .application("a.desktop"), name: "A", icon: "")])
        #expect(DmenuChooser.argument("%wOpen %u with", for: request) == prompt)
        #expect(DmenuChooser.argument("100%", for: request) == "100%")
    }

    /// The printed line is matched exactly, so a name that looks like another
    /// target's line still chooses its own target.
    @Test func aPrintedLineChoosesExactlyItsTarget() throws {
        var request = ChoiceRequest(url: try ValidatedURL("https://x.example/"), candidates: [
            ChooserCandidate(target: .application("a.desktop"), name: "B  [b.desktop]", icon: ""),
            ChooserCandidate(target: .application("b.desktop"), name: "B", icon: ""),
        ])
        request.defaultApplication = request.candidates[1]
        let lines = DmenuChooser.lines(for: request)
        #expect(lines == ["B  [b.desktop]  [a.desktop]", "B  [b.desktop]", "Use the default application (B)"])
        for (line, target) in zip(lines, ["a.desktop", "b.desktop"]) {
            #expect(DmenuChooser.reply(to: line + "\n", for: request) == .chosen(.application(target), url: "https://x.example/", activationToken: nil, remember: .none))
        }
        #expect(DmenuChooser.reply(to: lines[2], for: request) == .useDefault)
        #expect(DmenuChooser.reply(to: "B", for: request) == .chosen(.application("b.desktop"), url: "https://x.example/", activationToken: nil, remember: .none),
                "a menu that prints only what was typed")
        #expect(DmenuChooser.reply(to: "nothing offered", for: request) == .cancelled)
    }

    /// Menus are shown one at a time; a request whose time ran out while an
    /// earlier menu was up gets no menu of its own.
    @Test func aRequestThatExpiredWhileWaitingShowsNoMenu() async throws {
        let tree = try XDGTree()
        // The menu counts its runs and stays up until the test's time limit closes it.
        try tree.write("bin/menu", "#!/bin/sh\necho run >> \"$RECORDS/menu-runs\"\nexec sleep 60\n", executable: true)
        let chooser = DmenuChooser(command: [tree.root + "/bin/menu"], environment: tree.environment) { Issue.record("the menu cannot run: \($0)") }
        let request = ChoiceRequest(
            url: try ValidatedURL("https://x.example/"),
            candidates: [ChooserCandidate(target: .application("a.desktop"), name: "A", icon: "")])
        // The second asks only once the first's menu is up: started
        // together, a loaded machine could run the second first (its menu,
        // killed at 200 ms, then the first's: two runs, seen in CI). Its
        // time then ends well inside the first's.
        async let first = chooser.choose(request, within: .milliseconds(2000))
        let runs = tree.records + "/menu-runs"
        for _ in 0..<1000 where !FileManager.default.fileExists(atPath: runs) { try await Task.sleep(for: .milliseconds(2)) }
        async let second = chooser.choose(request, within: .milliseconds(200))
        // The menu killed at the deadline, and the request that never got
        // one, are both "unanswered", as the daemon's own wait running out is.
        let (answered, alsoAnswered) = await (first, second)
        #expect(answered == .unanswered)
        #expect(alsoAnswered == .unanswered)
        #expect(try String(contentsOfFile: runs, encoding: .utf8) == "run\n", "one menu, for the request still waited for")
    }

    /// A menu that cannot run cancels the request (nothing opens) and says
    /// why, naming the program, rather than failing without a word.
    @Test(arguments: [
        ("missing-menu", "the menu program 'missing-menu' is not on PATH"),
        ("bin/bad-menu", "cannot run {root}/bin/bad-menu: No such file or directory"),
    ])
    func aMenuThatCannotRunSaysWhy(command: String, warning: String) async throws {
        let tree = try XDGTree()
        try tree.write("bin/bad-menu", "#!/nonexistent/interpreter\n", executable: true)
        let warnings = Mutex<[String]>([])
        let program = command.hasPrefix("bin/") ? tree.root + "/" + command : command
        let chooser = DmenuChooser(command: [program], environment: tree.environment) { line in warnings.withLock { $0.append(line) } }
        let request = ChoiceRequest(url: try ValidatedURL("https://x.example/"), candidates: [ChooserCandidate(target: .application("a.desktop"), name: "A", icon: "")])
        #expect(await chooser.choose(request, within: .seconds(5)) == .cancelled)
        #expect(warnings.withLock { $0 } == [warning.replacingOccurrences(of: "{root}", with: tree.root)])
    }

    /// Both choosers serve `ChooserService`'s interface; this one needs no display.
    @Test func introspectionMatchesTheInterfaceXMLInTheRepository() async throws {
        try await withDmenuService { bus, _ in
            let live = try await run(["gdbus", "introspect", "--address", bus.address, "--dest", "org.openurld.Chooser1",
                                      "--object-path", "/org/openurld/Chooser1", "--xml"])
            #expect(live.status == 0, "gdbus: \(live.stderr)")
            let documented = try String(contentsOfFile: Binaries.repository + "/docs/org.openurld.Chooser1.xml", encoding: .utf8)
            let shape = introspectionShape(live.stdout, interfaces: ["org.openurld.Chooser1"])
            #expect(shape.count == 1)
            #expect(shape == introspectionShape(documented, interfaces: ["org.openurld.Chooser1"]))
        }
    }

    /// A bad call gets a named error, and the chooser goes on serving.
    @Test func badCallsAreRefusedByName() async throws {
        try await withDmenuService { _, client in
            func choose(_ arguments: [Value]) async -> DBusError? {
                do {
                    _ = try await client.call("org.openurld.Chooser1", "/org/openurld/Chooser1", "org.openurld.Chooser1", "Choose", arguments)
                    return nil
                } catch { return error }
            }
            let empty = [String: Variant]().dbusValue
            let target = [["id": Variant("a.desktop")]].dbusValue
            #expect(await choose([.string("not a url"), target, empty])?.name == .invalidArgs)
            #expect(await choose([.string("https://x.example/"), [[String: Variant]]().dbusValue, empty])?.name == .invalidArgs)
            #expect(await choose([.string("https://x.example/"), [["id": Variant("no/slash")]].dbusValue, empty])?.name == .invalidArgs)
            #expect(await choose([.string("https://x.example/")])?.name == .invalidArgs)
            // `true` prints nothing: cancelled, an answer rather than an error.
            #expect(await choose([.string("https://x.example/"), target, empty]) == nil)
        }
    }

    /// The contract type reads back what it writes, and refuses a reply it cannot read.
    @Test func requestsAndRepliesRoundTrip() throws {
        let request = DispatcherAPI.ChooserRequest(ChoiceRequest(
            url: try ValidatedURL("https://docs.example.com/a"),
            candidates: [ChooserCandidate(target: .profile("f.desktop", profile: "Work Stuff"), name: "F (Work Stuff)", icon: "f")],
            activationToken: "tok", callerAppID: "org.chat", rule: "ask",
            remember: RememberTargets(host: "docs.example.com", domain: "example.com"), linkText: "docs"), timeout: .seconds(300))
        #expect(try DispatcherAPI.ChooserRequest(arguments: request.arguments) == request)
        for reply in [DispatcherAPI.ChooserReply.chosen(.action("f.desktop", action: "new"), url: "https://x.example/", activationToken: "t", remember: .domain),
                      .cancelled, .useDefault] {
            #expect(try DispatcherAPI.ChooserReply(reply: reply.arguments, requested: "https://x.example/") == reply)
        }
        #expect(throws: DBusError.self) { try DispatcherAPI.ChooserReply(reply: [.uint32(7), [String: Variant]().dbusValue], requested: "") }
        #expect(throws: DBusError.self) { try DispatcherAPI.ChooserReply(reply: [.string("0")], requested: "") }
    }
}
