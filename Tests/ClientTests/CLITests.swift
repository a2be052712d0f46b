import DBus
import DispatcherAPI
import Foundation
import Spawn
import Synchronization
import Testing
import TestSupport

/// The built `openurl`, run as a user would, against the built `openurld`
/// on a private bus with a temporary XDG tree.
@Suite(.timeLimit(.minutes(2)))
struct CLITests {
    /// A daemon, a tree with a recorder browser, and the environment a user's shell would have.
    struct Session {
        let bus: PrivateBus
        let tree: XDGTree
        var environment: [String: String] {
            var environment = tree.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            return environment
        }

        /// Installs the dispatcher's desktop file and D-Bus service file in the
        /// tree, as `make install` would: what `set-default` requires.
        func installDispatcher() throws {
                try FileManager.default.createSymbolicLink(atPath: tree.root + "/bin/openurl", withDestinationPath: Binaries.openurl)
                let desktopFile = try String(contentsOfFile: Binaries.repository + "/packaging/org.openurld.Dispatcher1.desktop.in", encoding: .utf8)
                    .replacingOccurrences(of: "@BINDIR@", with: tree.root + "/bin")
                try tree.write("data/applications/org.openurld.Dispatcher1.desktop", desktopFile)
                try tree.write("usr/share/dbus-1/services/org.openurld.Dispatcher1.service", "[D-BUS Service]\nName=org.openurld.Dispatcher1\n")
        }

        func openurl(_ arguments: String..., input: String = "") async throws -> CommandResult {
            try await run([Binaries.openurl] + arguments, environment: environment, input: input)
        }
    }

    func withSession(daemon: Bool = true, _ body: (Session) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let tree = try XDGTree()
            try tree.app("browser.desktop", schemes: ["http", "https"])
            let pid = daemon ? try await Binaries.startDaemon(on: bus, tree: tree) : nil
            defer { pid.map(Binaries.stop) }
            try await body(Session(bus: bus, tree: tree))
        }
    }

    @Test func opensThroughTheDaemon() async throws {
        try await withSession { s in
            let result = try await s.openurl("-v", "https://example.com/a?b=c", "http://example.org/")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("https://example.com/a?b=c: opened (via openurld), browser.desktop"))
            let records = try await s.tree.waitForRecords(2)
            #expect(Set(records.map(\.arguments)) == [["https://example.com/a?b=c"], ["http://example.org/"]])
        }
    }

    @Test func exitCodesSayWhatHappened() async throws {
        try await withSession { s in
            #expect(try await s.openurl("gopher://x").status == 1)
            #expect(try await s.openurl("javascript:alert(1)").status == 1)
            let invalid = try await s.openurl("not a url")
            #expect(invalid.status == 2)
            #expect(invalid.stderr == "openurl: 'not a url': URL contains whitespace at offset 3\n")
            let option = try await s.openurl("--bogus")
            #expect(option.status == 2)
            #expect(option.stderr.contains("unknown option '--bogus'"))
            #expect(try await s.openurl().status == 2)
            #expect(try await s.openurl("--", "-oProxyCommand=x").status == 2)
            #expect(try await s.openurl("https://ok.example/", "bad url").status == 2, "the worst status wins")
        }
    }

    /// A mistyped subcommand is a usage error, and one bad argument opens
    /// none of the others (issue 14, item 1).
    @Test func aMistakeOnTheCommandLineOpensNothing() async throws {
        try await withSession { s in
            let typo = try await s.openurl("explian", "https://example.com/x")
            #expect(typo.status == 2)
            #expect(typo.stderr.hasPrefix("openurl: unknown command 'explian' (did you mean 'explain'?)"), "\(typo.stderr)")
            let far = try await s.openurl("frobnicate", "https://example.com/x")
            #expect(far.status == 2 && far.stderr.hasPrefix("openurl: unknown command 'frobnicate';"), "\(far.stderr)")
            #expect(try await s.openurl("hanlders").stderr.contains("did you mean 'handlers'?"))
            let mixed = try await s.openurl("https://first.example/", "no scheme here", "https://third.example/")
            #expect(mixed.status == 2)
            #expect(mixed.stderr == "openurl: 'no scheme here': URL contains whitespace at offset 2\n")
            // Proof that a launch would have been recorded: a good one is.
            #expect(try await s.openurl("https://after.example/").status == 0)
            let records = try await s.tree.waitForRecords(1)
            #expect(records.map(\.arguments) == [["https://after.example/"]], "\(records.map(\.arguments))")
        }
    }

    @Test func withoutADaemonItOpensDirectly() async throws {
        try await withSession(daemon: false) { s in
            let result = try await s.openurl("-v", "https://direct.example/")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("openurld is not running on this session bus"), "\(result.stderr)")
            #expect(try await s.tree.waitForRecords(1).first?.arguments == ["https://direct.example/"])
            #expect(try await s.openurl("gopher://nothing").status == 3)
            var noBus = s.environment
            noBus["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bus"
            let direct = try await run([Binaries.openurl, "https://no-bus.example/"], environment: noBus)
            #expect(direct.status == 0, "\(direct.stderr)")
            let status = try await s.openurl("status")
            #expect(status.status == 3 && status.stdout == "openurld is not running on this session bus\n")
        }
    }

    /// openurld took the URL and left before answering: it may have opened
    /// it already, so openurl does not open it a second time (fail closed).
    @Test func aDaemonThatLeavesBeforeAnsweringIsNotSecondGuessed() async throws {
        try await withSession(daemon: false) { s in
            let (fake, called) = try await FakeDispatcher.neverAnswering(on: s.bus)
            async let left = s.openurl("https://left.example/")
            for await _ in called { break }
            fake.connection.close()
            let result = try await left
            #expect(result.status == 3, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("openurl: https://left.example/: openurld stopped before answering"), "\(result.stderr)")
            // With nobody owning the name now, openurl opens directly; had it
            // opened the first URL too, that launch would be recorded first.
            #expect(try await s.openurl("https://after.example/").status == 0)
            let records = try await s.tree.waitForRecords(1)
            #expect(records.map(\.arguments) == [["https://after.example/"]], "\(records.map(\.arguments))")
        }
    }

    /// `openurl`'s blocking call goes to the well-known name: a third peer's
    /// answers to it (accepted, or "openurld is not there", which would make
    /// openurl open the URL itself) are dropped, and the owner's answer counts.
    @Test(arguments: ["accepted", "ServiceUnknown"])
    func forgedAnswersToOpenURLAreIgnored(forgery: String) async throws {
        try await withSession(daemon: false) { s in
            let fake = try await Connection.connect(to: s.bus.address)
            let forger = try await Connection.connect(to: s.bus.address)
            defer { [fake, forger].forEach { $0.close() } }
            let (called, call) = AsyncStream.makeStream(of: BusName.self)
            let (go, goContinuation) = AsyncStream<Void>.makeStream()
            let gate = Mutex<AsyncStream<Void>?>(go)
            let dictionary = DBusType.dictionary(key: .string, value: .variant)
            fake.export([ExportedInterface(DispatcherAPI.dispatcherInterface, methods: [
                ExportedMethod(DispatcherAPI.Member.openURLWithOptions,
                               arguments: [Argument("url", .string), Argument("options", dictionary)],
                               results: [Argument("accepted", .boolean), Argument("result", dictionary)],
                               asyncHandler: { request in
                                   call.yield(request.sender)
                                   if let go = gate.withLock({ $0 }) { for await _ in go { break } }
                                   return [.boolean(false), ["outcome": Variant("discarded")].dbusValue]
                               }),
            ])], at: DispatcherAPI.objectPath)
            #expect(try await fake.requestName(DispatcherAPI.busName) == .primaryOwner)
            async let opened = s.openurl("https://bank.example/")
            var victim: BusName?
            for await sender in called { victim = sender; break }
            let template = switch forgery {
            case "accepted":
                try Message.reply(
                    to: try forgedCall(to: victim!), arguments: [.boolean(true), ["outcome": Variant("handled")].dbusValue])
            default:
                try Message.errorReply(to: try forgedCall(to: victim!), DBusError(.serviceUnknown, "openurld is gone"))
            }
            try forgeReplies(from: forger, to: victim!, serials: 1...200, like: template)
            _ = try await forger.owner(of: victim!)
            goContinuation.yield()
            let result = try await opened
            #expect(result.status == 1, "\(result.stderr)")
            #expect(s.tree.recorded().isEmpty, "nothing is opened directly")
        }
    }

    /// What the caller's own start left in its environment never reaches
    /// the app; this launch's token does (issue 14, item 6).
    @Test(arguments: [false, true]) func launchedAppsGetACleanEnvironment(throughTheDaemon: Bool) async throws {
        try await withPrivateBus { bus in
            let tree = try XDGTree()
            try tree.app("browser.desktop", schemes: ["https"])
            var polluted = tree.environment
            polluted["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            let leaks = [
                "GIO_LAUNCHED_DESKTOP_FILE": "/usr/share/applications/org.gnome.Terminal.desktop",
                "GIO_LAUNCHED_DESKTOP_FILE_PID": "4242", "CHROME_DESKTOP": "code.desktop", "ELECTRON_RUN_AS_NODE": "1",
                "APPIMAGE": "/tmp/x.AppImage", "DBUS_STARTER_BUS_TYPE": "session",
            ]
            polluted.merge(leaks) { $1 }
            polluted["XDG_ACTIVATION_TOKEN"] = "this-launch"
            polluted["KEEP_ME"] = "yes"
            var pid: pid_t?
            if throughTheDaemon {
                var daemonEnvironment = polluted
                daemonEnvironment["XDG_ACTIVATION_TOKEN"] = "stale-daemon-token"
                pid = try spawn(Binaries.openurld, arguments: ["openurld", "--address", bus.address],
                                environment: daemonEnvironment.map { "\($0.key)=\($0.value)" })
                let watcher = try await bus.connect()
                defer { watcher.close() }
                while try await watcher.owner(of: "org.openurld.Dispatcher1") == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            defer { pid.map(Binaries.stop) }
            let result = try await run([Binaries.openurl, "-v", "https://clean.example/"], environment: polluted)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains(throughTheDaemon ? "(via openurld)" : "(via the system default)"), "\(result.stderr)")
            let record = try #require(try await tree.waitForRecords(1).first)
            for name in leaks.keys { #expect(record.environment[name] == nil, "\(name) leaked into the app") }
            #expect(record.environment["XDG_ACTIVATION_TOKEN"] == "this-launch")
            #expect(record.environment["DESKTOP_STARTUP_ID"] == "this-launch")
            #expect(record.environment["KEEP_ME"] == "yes")
        }
    }

    /// A malformed token inherited from whoever started openurl costs the
    /// app's focus, never the link: it is dropped, said with -v, and the URL opened.
    @Test(arguments: [(false, "tok en"), (true, "tok en"), (true, String(repeating: "t", count: 1500))])
    func aMalformedInheritedTokenIsDroppedAndTheLinkOpened(throughTheDaemon: Bool, token: String) async throws {
        try await withSession(daemon: throughTheDaemon) { s in
            var environment = s.environment
            environment["XDG_ACTIVATION_TOKEN"] = token
            let result = try await run([Binaries.openurl, "-v", "https://token.example/"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("the inherited activation token"), "\(result.stderr)")
            let record = try #require(try await s.tree.waitForRecords(1).first)
            #expect(record.arguments == ["https://token.example/"])
            #expect(record.environment["XDG_ACTIVATION_TOKEN"] == nil)
        }
    }

    /// As the default browser, openurld is sent HTML files, as paths or file:
    /// URLs: each goes to the default application for its MIME type, never
    /// to the dispatcher, although it is that type's first default (issue 14, item 9).
    @Test func filesGoToTheApplicationForTheirType() async throws {
        try await withSession { s in
            try s.tree.write("usr/share/mime/globs2", "80:text/html:*.html\n50:application/x-desktop:*.desktop\n50:text/plain:*.txt\n")
            try s.tree.app("org.openurld.Dispatcher1.desktop", schemes: ["https"], exec: "openurl %U", extra: "DBusActivatable=true\nMimeType=text/html;")
            try s.tree.app("viewer.desktop", schemes: [], exec: "recorder viewer %f", extra: "MimeType=text/html;")
            try s.tree.write("config/mimeapps.list", "[Default Applications]\ntext/html=org.openurld.Dispatcher1.desktop;viewer.desktop;\n")
            try s.tree.write("home/My Pages/a page.html", "<p>hi</p>")
            try s.tree.write("home/evil.desktop", "[Desktop Entry]\nType=Application\nExec=sh -c 'rm -rf ~'\n")
            try s.tree.write("home/notes.txt", "no app for text/plain here")

            // A relative path, from the caller's working directory.
            let byPath = try await run(["sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", s.tree.root + "/home",
                                        Binaries.openurl, "-v", "My Pages/a page.html"], environment: s.environment)
            #expect(byPath.status == 0, "\(byPath.stderr)")
            let fileURL = "file://" + s.tree.root + "/home/My%20Pages/a%20page.html"
            #expect(byPath.stderr.contains(fileURL + ": opened (via openurld), viewer.desktop"), "\(byPath.stderr)")
            #expect(try await s.tree.waitForRecords(1).first?.arguments == [s.tree.root + "/home/My Pages/a page.html"])

            let evil = try await s.openurl("file://" + s.tree.root + "/home/evil.desktop")
            #expect(evil.status == 1 && evil.stderr.contains("is application/x-desktop, which opening could run"), "\(evil.stderr)")
            let missing = try await s.openurl("file:///nonexistent/page.html")
            #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/page.html does not exist"), "\(missing.stderr)")
            // A newline in a file's name cannot start a line of its own.
            let forged = try await s.openurl("file:///nonexistent/a%0Aopenurl:%20forged.html")
            #expect(forged.status == 1 && forged.stderr.split(separator: "\n").count == 1, "\(forged.stderr)")
            #expect(forged.stderr.contains("a\\u{A}openurl: forged.html"), "\(forged.stderr)")
            let remote = try await s.openurl("file://elsewhere.example/etc/passwd")
            #expect(remote.status == 1 && remote.stderr.contains("file: URLs of other hosts (elsewhere.example)"), "\(remote.stderr)")
            let plain = try await s.openurl(s.tree.root + "/home/notes.txt")
            #expect(plain.status == 1 && plain.stderr.contains("no application is set up for text/plain"), "\(plain.stderr)")
            #expect(try await s.openurl("explain", fileURL).stdout.hasSuffix("it would be opened with viewer.desktop\n"))
            #expect(s.tree.recorded().count == 1)
        }
    }

    /// Files the name does not type, through the daemon and as `openurl
    /// default PATH|TYPE` explains them without it (issue 25), with the
    /// machine's whole MIME database.
    @Test func filesAreTypedByContentsWhenTheNameSaysNothing() async throws {
        try await withSession { s in
            try FileManager.default.createDirectory(atPath: s.tree.root + "/usr/share/mime", withIntermediateDirectories: true)
            for name in ["globs2", "aliases", "subclasses", "magic"] {
                let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/mime/" + name), "shared-mime-info is not installed")
                try bytes.write(to: URL(fileURLWithPath: s.tree.root + "/usr/share/mime/" + name))
            }
            try s.tree.app("reader.desktop", schemes: [], exec: "recorder reader %f", extra: "MimeType=application/pdf;")
            try s.tree.app("editor.desktop", schemes: [], exec: "recorder editor %f", extra: "MimeType=text/plain;")
            try s.tree.write("config/mimeapps.list", "[Default Applications]\ntext/plain=editor.desktop;\n")
            try s.tree.write("home/download", "%PDF-1.7\n%\u{E2}\u{E3}\n")
            try s.tree.write("home/notes", "Dear Bob,\nthanks.\n")
            try s.tree.write("home/script.txt", "#!/bin/sh\necho pwned\n")
            let home = s.tree.root + "/home/"

            let explained = try await s.openurl("default", home + "download", home + "notes", "application/x-pdf", "text/x-log")
            #expect(explained.status == 0, "\(explained.stderr)")
            // Columns as `table` pads them; compared with each run of spaces as two.
            let rows = explained.stdout.split(separator: "\n").map { $0.replacing(/\ {2,}/, with: "  ") }
            #expect(rows == [
                "\(home)download  reader.desktop  (application/pdf: no glob matches the name; the contents match application/pdf's rules (priority 50); the first application that claims application/pdf)",
                "\(home)notes  editor.desktop  (text/plain: no glob matches the name and no contents rule matches; the first bytes are text; the default for text/plain)",
                "application/x-pdf  reader.desktop  (the first application that claims application/pdf)",
                "text/x-log  editor.desktop  (the default for text/plain, a parent type of text/x-log)",
            ], "\(explained.stdout)")
            let refused = try await s.openurl("default", home + "script.txt")
            #expect(refused.status == 1 && refused.stdout.contains("(refused)") && refused.stdout.contains("application/x-shellscript"),
                    "\(refused.stdout)")
            #expect(s.tree.recorded().isEmpty, "default opens nothing")

            // Through the daemon, as typed: the PDF without extension to the reader; the script named as text not at all.
            #expect(try await s.openurl(home + "download").status == 0)
            #expect(try await s.tree.waitForRecords(1).first?.arguments == [home + "download"])
            let script = try await s.openurl(home + "script.txt")
            #expect(script.status == 1 && script.stderr.contains("has the contents of application/x-shellscript"), "\(script.stderr)")
            #expect(s.tree.recorded().count == 1)
        }
    }

    /// A path is bytes (issue 25): a file whose name is not UTF-8
    /// (`caf\xE9.txt`, from an old disk) is opened from a raw argv word
    /// and from its `file:` URL, reaches the application as its own bytes
    /// (`%f`) or as its URL (`%u`), and is shown escaped.
    @Test func fileNamesThatAreNotUTF8AreKeptAsBytes() async throws {
        try await withSession { s in
            try FileManager.default.createDirectory(atPath: s.tree.root + "/usr/share/mime", withIntermediateDirectories: true)
            try s.tree.write("usr/share/mime/globs2", "50:text/plain:*.txt\n50:text/html:*.html\n")
            try s.tree.app("editor.desktop", schemes: [], exec: "recorder editor %f", extra: "MimeType=text/plain;")
            try s.tree.app("viewer.desktop", schemes: [], exec: "recorder viewer %u", extra: "MimeType=text/html;")
            let home = s.tree.root + "/home/"
            // Made with the bytes themselves, not through anything under test.
            let name = Array(home.utf8) + [0x63, 0x61, 0x66, 0xE9] + Array(".txt".utf8)
            let page = Array(home.utf8) + [0x70, 0xE9] + Array(".html".utf8)
            for path in [name, page] {
                let fd = (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) } }
                #expect(fd >= 0)
                close(fd)
            }
            // argv as a shell gives it: the byte E9, which no UTF-8 decoder keeps.
            func openurl(_ arguments: String..., withByteE9After prefix: String, _ suffix: String) async throws -> CommandResult {
                try await run(["/bin/sh", "-c", #"exec "$0" "$@" "$P$(printf '\351')$S""#, Binaries.openurl] + arguments,
                              environment: s.environment.merging(["P": prefix, "S": suffix]) { $1 })
            }

            let fromArgv = try await openurl(withByteE9After: home + "caf", ".txt")
            #expect(fromArgv.status == 0, "\(fromArgv.stderr)")
            #expect(try await s.tree.waitForRecords(1).last?.argumentBytes == [name])
            let fromURL = try await s.openurl("file://" + home + "caf%E9.txt")
            #expect(fromURL.status == 0, "\(fromURL.stderr)")
            #expect(try await s.tree.waitForRecords(2).last?.argumentBytes == [name])
            let asURL = try await openurl(withByteE9After: home + "p", ".html")
            #expect(asURL.status == 0, "\(asURL.stderr)")
            let records = try await s.tree.waitForRecords(3)
            #expect(records.last?.app == "viewer" && records.last?.arguments == ["file://" + home + "p%E9.html"])

            let explained = try await openurl("default", withByteE9After: home + "caf", ".txt")
            #expect(explained.status == 0 && explained.stdout.hasPrefix(home + "caf\\xE9.txt "), "\(explained.stdout)")
            #expect(explained.stdout.contains("editor.desktop"), "\(explained.stdout)")
            let missing = try await openurl(withByteE9After: home + "nope", ".txt")
            #expect(missing.status != 0 && missing.stderr.contains(home + "nope\\xE9.txt does not exist"), "\(missing.stderr)")
            #expect(s.tree.recorded().count == 3)
        }
    }

    /// Targets (issue 16): applications, their desktop actions and browser
    /// profiles, listed by `openurl targets` and opened by rules' `Open=`.
    @Test func targetsAreListedAndRulesOpenThem() async throws {
        try await withSession { s in
            try s.tree.app("firefox.desktop", schemes: ["https"], exec: "recorder firefox %u", extra: """
                Actions=new-private-window;

                [Desktop Action new-private-window]
                Name=New Private Window
                Exec=recorder firefox-private --private-window %u
                """)
            try s.tree.app("brave-browser.desktop", schemes: ["https"], exec: "recorder brave %u")
            try s.tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=firefox.desktop;\n")
            try s.tree.write("home/.mozilla/firefox/profiles.ini", "[Profile0]\nName=work\nPath=a.work\n\n[Profile1]\nName=default\nPath=b.default\n")
            try s.tree.write("config/BraveSoftware/Brave-Browser/Local State", #"{"profile":{"info_cache":{"Profile 3":{"name":"Banking"}}}}"#)

            let listed = try await s.openurl("targets")
            #expect(listed.status == 0, "\(listed.stderr)")
            let targets = listed.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: " ").first ?? "") }
            #expect(targets.prefix(4) == ["firefox.desktop", "firefox.desktop:new-private-window", "firefox.desktop@work", "firefox.desktop@default"],
                    "\(listed.stdout)")
            #expect(targets.contains("brave-browser.desktop@Banking") && targets.contains("browser.desktop"), "\(listed.stdout)")
            let json = try await s.openurl("targets", "--json", "https")
            #expect(json.stdout.hasPrefix(#"[{"target":"firefox.desktop","name":"firefox","kind":"application"},"#), "\(json.stdout)")
            #expect(try await s.openurl("targets", "gopher").status == 1)

            try s.tree.write("config/openurld/rules.d/10-targets.rules", """
                [Rule work]
                Hosts=work.example
                Open=firefox.desktop@work

                [Rule private]
                Hosts=private.example
                Open=firefox.desktop:new-private-window

                [Rule bank]
                Hosts=bank.example
                Open=brave-browser.desktop@Banking
                """)
            _ = try await run([Binaries.openurl, "check-rules"], environment: s.environment)
            // The daemon notices the new rule file; wait until explain shows it.
            for _ in 0..<200 where !(try await s.openurl("explain", "https://work.example/").stdout.contains("rule \"work\"")) {
                try await Task.sleep(for: .milliseconds(25))
            }
            for url in ["https://work.example/a", "https://private.example/b", "https://bank.example/c"] {
                let opened = try await s.openurl("-v", url)
                #expect(opened.status == 0, "\(url): \(opened.stderr)")
            }
            let records = try await s.tree.waitForRecords(3)
            let seen = Set(records.map { [$0.app] + $0.arguments })
            #expect(seen == [["firefox", "-P", "work", "https://work.example/a"], ["firefox-private", "--private-window", "https://private.example/b"],
                             ["brave", "--profile-directory=Profile 3", "https://bank.example/c"]], "\(seen)")
        }
    }

    /// Every browser family, native and Flatpak, from fixture profile lists
    /// where each browser keeps them, with a profile whose name has spaces.
    @Test func profilesOfEveryBrowserFamilyAreFound() async throws {
        try await withSession(daemon: false) { s in
            let firefox = "[Profile0]\nName=Work Stuff\nIsRelative=1\nPath=x.work\n"
            let chromium = #"{"profile":{"info_cache":{"Profile 2":{"name":"Work Stuff"}}}}"#
            let browsers: [(id: String, file: String, text: String)] = [
                ("firefox.desktop", "home/.mozilla/firefox/profiles.ini", firefox),
                ("org.mozilla.firefox.desktop", "home/.var/app/org.mozilla.firefox/.mozilla/firefox/profiles.ini", firefox),
                ("chromium.desktop", "config/chromium/Local State", chromium),
                ("org.chromium.Chromium.desktop", "home/.var/app/org.chromium.Chromium/config/chromium/Local State", chromium),
                ("google-chrome.desktop", "config/google-chrome/Local State", chromium),
                ("com.google.Chrome.desktop", "home/.var/app/com.google.Chrome/config/google-chrome/Local State", chromium),
                ("brave-browser.desktop", "config/BraveSoftware/Brave-Browser/Local State", chromium),
                ("com.brave.Browser.desktop", "home/.var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser/Local State", chromium),
                ("microsoft-edge.desktop", "config/microsoft-edge/Local State", chromium),
                ("com.microsoft.Edge.desktop", "home/.var/app/com.microsoft.Edge/config/microsoft-edge/Local State", chromium),
                ("vivaldi-stable.desktop", "config/vivaldi/Local State", chromium),
                ("com.vivaldi.Vivaldi.desktop", "home/.var/app/com.vivaldi.Vivaldi/config/vivaldi/Local State", chromium),
            ]
            for browser in browsers {
                try s.tree.app(browser.id, schemes: ["https"])
                try s.tree.write(browser.file, browser.text)
            }
            let listed = try await s.openurl("targets", "https")
            for browser in browsers {
                #expect(listed.stdout.contains("\n\(browser.id)@Work Stuff "), "\(browser.id): \(listed.stdout)")
            }
        }
    }

    /// Flatpak's exports count as an applications directory even when
    /// XDG_DATA_DIRS lacks them (a service started by D-Bus often has no
    /// login-script environment).
    @Test func flatpakExportsAreApplicationsToo() async throws {
        try await withSession(daemon: false) { s in
            try s.tree.app("org.mozilla.firefox.desktop", in: "data/flatpak/exports/share/applications", schemes: ["https"],
                           exec: "recorder flatpak-firefox %u")
            let listed = try await s.openurl("targets", "https")
            #expect(listed.stdout.contains("org.mozilla.firefox.desktop"), "\(listed.stdout)")
        }
    }

    @Test func explainHandlersStatusAndDefault() async throws {
        try await withSession { s in
            let explain = try await s.openurl("explain", "https://example.com/")
            #expect(explain.stdout == "https://example.com/: no handler or rule matches\nit would be opened with browser.desktop (the first application that claims it)\n")
            let json = try await s.openurl("explain", "--json", "https://example.com/")
            #expect(json.stdout == "{\"url\":\"https://example.com/\",\"host\":\"example.com\",\"handlers\":[],\"application\":\"browser.desktop\"}\n")
            #expect(try await s.openurl("handlers").stdout == "no handlers are registered\n")
            #expect(try await s.openurl("handlers", "--json").stdout == "[]\n")
            let status = try await s.openurl("status")
            #expect(status.status == 0 && status.stdout.hasPrefix("openurld 0.1.0 is running as :1."))
            #expect(try await s.openurl("default", "https", "mailto").stdout == "https   browser.desktop  (the first application that claims it)\nmailto  (none)\n")
            #expect(s.tree.recorded().isEmpty, "explain and default open nothing")
        }
    }

    @Test func everySubcommandHasAManPageHelp() async throws {
        for topic in ["explain", "handlers", "rules", "check-rules", "detect", "handle", "default", "set-default", "unset-default", "targets", "status"] {
            let result = try await run([Binaries.openurl, topic, "--help"])
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("Usage: openurl"), "\(topic)")
            #expect(result.stdout.contains("Exit status"), "\(topic)")
        }
        let main = try await run([Binaries.openurl, "--help"])
        #expect(main.stdout.contains("Exit status:") && main.stdout.contains("Examples:"))
        #expect(try await run([Binaries.openurl, "--version"]).stdout == "openurl 0.1.0\n")
    }

    static let rulesFile = """
        [Rule block]
        Hosts=ads.example
        Result=discarded

        [Rule nitter]
        Hosts=twitter.com
        Match=^https://twitter\\.com/(.*)$
        Rewrite=https://nitter.net/$1
        Priority=3

        [Rule broken]
        Match=(a)\\1
        Result=handled
        """

    @Test func rulesCheckRulesAndExplainShowWhatRulesDo() async throws {
        try await withSession { s in
            let file = s.tree.root + "/config/openurld/rules.d/10-mine.rules"
            try s.tree.write("config/openurld/rules.d/10-mine.rules", Self.rulesFile)
            try s.tree.write("elsewhere/ok.rules", "[Rule ok]\nResult=handled\n")
            var loaded = ""
            for _ in 0..<500 {
                loaded = try await s.openurl("rules").stdout
                if loaded.contains("nitter") { break }
                try await Task.sleep(for: .milliseconds(10))
            }

            let check = try await s.openurl("check-rules")
            #expect(check.status == 1)
            #expect(check.stdout == """
                \(file):12: Match=: at offset 3: backreferences are not supported (they need backtracking)
                2 rules in 1 file loaded; 1 problem (the rules they concern are skipped)

                """)
            let one = try await s.openurl("check-rules", s.tree.root + "/elsewhere/ok.rules")
            #expect(one.status == 0 && one.stdout == "1 rule in 1 file: no problems\n")

            let rows = loaded.split(separator: "\n").map { $0.split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) } }
            #expect(rows == [
                ["NAME", "SOURCE", "PRIORITY", "MATCHES", "EFFECT"],
                ["block", "\(file):1", "0", "* hosts ads.example", "answer discarded"],
                ["nitter", "\(file):5", "3", "* hosts twitter.com match ^https://twitter\\.com/(.*)$", "rewrite to https://nitter.net/$1"],
                ["problem: \(file):12: Match=: at offset 3: backreferences are not supported (they need backtracking)"],
            ])
            #expect(try await s.openurl("rules", "--json").stdout.hasPrefix("{\"rules\":[{\"name\":\"block\",\"file\":"))

            let explain = try await s.openurl("explain", "https://twitter.com/jack")
            #expect(explain.stdout == """
                https://twitter.com/jack would be offered, in this order, to:
                  1. rule "nitter" (\(file):5, priority 3): pass on https://nitter.net/jack
                then, if all pass, https://nitter.net/jack would be opened with browser.desktop (the first application that claims it)

                """)
            let blocked = try await s.openurl("explain", "https://ads.example/x")
            #expect(blocked.stdout.hasSuffix("  1. rule \"block\" (\(file):1, priority 0): discarded\nand the walk would stop there (discarded)\n"))
            let json = try await s.openurl("explain", "--json", "https://ads.example/x")
            #expect(json.stdout.contains("\"kind\":\"rule\",\"name\":\"block\""))
            #expect(json.stdout.contains("\"url\":\"https://ads.example/x\",\"result\":\"discarded\""))
            // The whole rule, not defaults filled in by the client.
            #expect(json.stdout.contains("\"hosts\":[\"ads.example\"]"), "\(json.stdout)")
            let nitter = try await s.openurl("explain", "--json", "https://twitter.com/jack")
            #expect(nitter.stdout.contains("\"hosts\":[\"twitter.com\"]") && nitter.stdout.contains("\"match\":\"^https://twitter\\\\.com/(.*)$\""), "\(nitter.stdout)")
            #expect(nitter.stdout.contains("\"host\":\"twitter.com\"") && !nitter.stdout.contains("\"match\":null"))
            // A host spelled otherwise is explained in the form that matched.
            let spelled = try await s.openurl("explain", "https://ADS.example./x")
            #expect(spelled.stdout.contains("(host read as ads.example, as a browser reads it)\n  1. rule \"block\""), "\(spelled.stdout)")

            let opened = try await s.openurl("-v", "https://twitter.com/jack")
            #expect(opened.status == 0)
            #expect(try await s.tree.waitForRecords(1)[0].arguments == ["https://nitter.net/jack"])
            let refused = try await s.openurl("https://ads.example/x")
            #expect(refused.status == 1 && refused.stderr.contains("discarded (via openurld)"))
        }
    }

    @Test func detectPrintsFindsAndOpensLinks() async throws {
        try await withSession { s in
            let words = try await s.openurl("detect", "see", "example.org/docs,", "or", "call", "+1 (555) 010-9999")
            #expect(words.status == 0 && words.stdout == "https://example.org/docs\ntel:+15550109999\n")
            let piped = try await s.openurl("detect", "--json", input: "é https://a.example/x\nmail jane@example.com.\n")
            #expect(piped.stdout == "[{\"offset\":3,\"length\":19,\"kind\":\"web\",\"url\":\"https://a.example/x\"},"
                + "{\"offset\":28,\"length\":16,\"kind\":\"email\",\"url\":\"mailto:jane@example.com\"}]\n")
            let kinds = try await s.openurl("detect", "--kinds", "email", input: "https://a.example jane@example.com")
            #expect(kinds.stdout == "mailto:jane@example.com\n")
            let none = try await s.openurl("detect", "no links, version 1.2.3 on 2024-01-15")
            #expect(none.status == 1 && none.stdout.isEmpty)
            #expect(try await s.openurl("detect", "--kinds", "fax", "x").status == 2)
            #expect(try await s.openurl("detect", "--json", "--open", "x").status == 2)
            // National numbers in the locale's region, or --region's; national without one.
            func detect(_ arguments: String..., locale: [String: String]) async throws -> CommandResult {
                try await run([Binaries.openurl, "detect"] + arguments,
                              environment: s.environment.merging(["LC_ALL": "", "LC_TELEPHONE": "", "LANG": "C.UTF-8"].merging(locale) { $1 }) { $1 })
            }
            #expect(try await detect("06 12 34 56 78", locale: ["LC_TELEPHONE": "fr_FR.UTF-8"]).stdout == "tel:+33612345678\n")
            #expect(try await detect("06 12 34 56 78", locale: [:]).stdout == "tel:0612345678\n")
            #expect(try await detect("--region", "de", "030 1234567", locale: ["LC_TELEPHONE": "fr_FR.UTF-8"]).stdout == "tel:+49301234567\n")
            let unknown = try await detect("--region", "XX", "x", locale: [:])
            #expect(unknown.status == 2 && unknown.stderr.contains("unknown region 'XX'"), "\(unknown.stderr)")

            let opened = try await s.openurl("detect", "--open", input: "read https://one.example/ and www.two.example.org/x.\n")
            #expect(opened.status == 0, "\(opened.stderr)")
            let records = try await s.tree.waitForRecords(2)
            #expect(Set(records.map(\.arguments)) == [["https://one.example/"], ["https://www.two.example.org/x"]])
        }
    }

    /// Without a daemon, openurl applies the rules itself before the default.
    @Test func withoutADaemonTheRulesStillApply() async throws {
        try await withSession(daemon: false) { s in
            try s.tree.write("config/openurld/rules.d/10-mine.rules", Self.rulesFile)
            #expect(try await s.openurl("https://twitter.com/jack").status == 0)
            #expect(try await s.tree.waitForRecords(1)[0].arguments == ["https://nitter.net/jack"])
            let refused = try await s.openurl("https://ads.example/x")
            #expect(refused.status == 1 && refused.stderr.contains("discarded (via the rules): rule 'block'"), "\(refused.stderr)")
            let rules = try await s.openurl("rules")
            #expect(rules.stderr.contains("openurld is not running on this session bus"), "\(rules.stderr)")
            #expect(rules.stdout.contains("nitter"))
            // The same router as the daemon's: a rule's Open= application is reported (issue 18).
            try s.tree.write("config/openurld/rules.d/20-open.rules", "[Rule with-browser]\nHosts=open.example\nOpen=browser.desktop\n")
            let opened = try await s.openurl("-v", "https://open.example/")
            #expect(opened.stderr.contains("https://open.example/: handled (via the rules), browser.desktop: rule 'with-browser'"),
                    "\(opened.stderr)")
        }
    }

    /// Errors say what happened in the person's terms, not the bus's, and
    /// -v shows where a rewritten URL went (issue 14, item 10).
    @Test func errorsSpeakOfOpenurldNotOfThePlumbing() async throws {
        try await withSession(daemon: false) { s in
            let handle = try await s.openurl("handle", "--scheme", "https", "--", "true")
            #expect(handle.status == 3)
            #expect(handle.stderr == "openurl: cannot register the handler: openurld is not running on this session bus, "
                + "and the bus cannot start it (its D-Bus service file, org.openurld.Dispatcher1.service, is not installed)\n",
                "\(handle.stderr)")
            #expect(!handle.stderr.contains(".service files"))
            let explain = try await s.openurl("explain", "https://example.com/")
            #expect(explain.status == 3 && explain.stderr.hasPrefix("openurl: openurld is not running on this session bus"), "\(explain.stderr)")

            try s.tree.write("config/openurld/rules.d/10-mine.rules", Self.rulesFile)
            let rewritten = try await s.openurl("-v", "https://twitter.com/jack")
            #expect(rewritten.stderr.contains("https://twitter.com/jack → https://nitter.net/jack: opened (via the system default), browser.desktop"),
                    "\(rewritten.stderr)")
        }
        try await withSession { s in
            let invalid = try await run([Binaries.directory + "/open-link", "not a url"], environment: s.environment)
            #expect(invalid.status == 1)
            #expect(invalid.stdout == "not opened: URL has no scheme (expected something like 'https:')\n", "\(invalid.stdout)")
            let rewritten = try await s.openurl("-v", "https://example.com/a")
            #expect(rewritten.stderr.contains("https://example.com/a: opened (via openurld), browser.desktop"), "\(rewritten.stderr)")
        }
    }

    /// Rule files are text anyone may have copied from the web: what `openurl`
    /// prints of them must not drive the terminal (issue 15, item 4).
    @Test func printedPeerTextCannotDriveTheTerminal() async throws {
        try await withSession { s in
            try s.tree.write("config/openurld/rules.d/10-evil.rules", "[Rule evil]\nHosts=evil.example\nExec=echo \u{1B}[2J\u{9B}31m\u{202E} %u\n")
            for arguments in [["rules"], ["rules", "--json"], ["explain", "https://evil.example/"]] {
                var result = try await run([Binaries.openurl] + arguments, environment: s.environment)
                for _ in 0..<100 where !result.stdout.contains("echo") {
                    try await Task.sleep(for: .milliseconds(20))
                    result = try await run([Binaries.openurl] + arguments, environment: s.environment)
                }
                let shown = result.stdout + result.stderr
                #expect(result.stdout.contains("echo"), "\(arguments): \(shown)")
                #expect(!shown.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, "\(arguments): \(shown.debugDescription)")
            }
        }
    }

    /// A shell script as a handler, answering each of the four results.
    @Test func handleMakesAnyScriptAHandler() async throws {
        try await withSession { s in
            try s.tree.write("bin/decide", """
                #!/bin/sh
                case "$1" in
                  *handle-me*) echo handled ;;
                  *drop-me*) echo discarded ;;
                  *rewrite-me*) echo "systemAction https://rewritten.example/from-handler" ;;
                  *silent-ok*) exit 0 ;;
                  *) echo systemAction ;;
                esac
                echo "$OPENURL_URL" >> "$RECORDS/handler-saw"
                """, executable: true)
            let handler = try spawn(
                Binaries.openurl, arguments: ["openurl", "handle", "--scheme", "https", "--name", "script", "--", "decide"],
                environment: s.environment.map { "\($0.key)=\($0.value)" })
            defer { Binaries.stop(handler) }
            for _ in 0..<300 {
                if try await s.openurl("handlers").stdout.contains("script") { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try await s.openurl("https://handle-me.example/").status == 0)
            #expect(try await s.openurl("https://drop-me.example/").status == 1)
            #expect(try await s.openurl("https://silent-ok.example/").status == 0)
            #expect(try await s.openurl("https://pass-me.example/").status == 0)
            #expect(try await s.openurl("https://rewrite-me.example/").status == 0)
            let records = try await s.tree.waitForRecords(2)
            #expect(Set(records.map(\.arguments)) == [["https://pass-me.example/"], ["https://rewritten.example/from-handler"]])
            // SIGTERM removes the handler at once.
            Binaries.stop(handler)
            #expect(try await s.openurl("handlers").stdout == "no handlers are registered\n")
        }
    }

    /// GNOME Settings (GLib's `g_app_info_set_as_default_for_type`, which
    /// `gio mime TYPE APP` calls) makes openurld the default alone, dropping the
    /// browser it replaced; Plasma's panel writes the same. Links no rule
    /// decides still reach the browser that was the default just before, not
    /// another browser that sorts first (issue 29): the daemon recorded it,
    /// whether the switch happened while it ran or between two of its runs.
    @Test(arguments: ["gio", "plasma"], [true, false])
    func aSettingsPanelThatDropsThePreviousBrowserDoesNotLoseIt(panel: String, whileRunning: Bool) async throws {
        try await withSession(daemon: false) { s in
            try s.installDispatcher()
            // Two browsers: without a record, the documented rule would pick aaa-browser.
            try s.tree.app("aaa-browser.desktop", schemes: ["http", "https"], exec: "recorder aaa-browser %u",
                           extra: "Categories=Network;WebBrowser;")
            try s.tree.app("firefox.desktop", schemes: ["http", "https"], exec: "recorder firefox %u",
                           extra: "Categories=Network;WebBrowser;")
            var gioEnvironment = s.tree.environment
            gioEnvironment["GIO_USE_VFS"] = "local"
            func setDefault(_ id: String) async throws {
                switch panel {
                case "gio":
                    for type in ["x-scheme-handler/https", "x-scheme-handler/http"] {
                        let set = try await run(["gio", "mime", type, id], environment: gioEnvironment)
                        #expect(set.status == 0, "\(set.stderr)")
                    }
                default:
                    try s.tree.write("config/mimeapps.list", """
                        [Added Associations]
                        x-scheme-handler/https=\(id);
                        x-scheme-handler/http=\(id);

                        [Default Applications]
                        x-scheme-handler/https=\(id)
                        x-scheme-handler/http=\(id)

                        """)
                }
            }
            let record = s.tree.root + "/state/openurld/previous-defaults.list"
            func recorded() -> String { (try? String(contentsOfFile: record, encoding: .utf8)) ?? "" }
            func waitForRecord() async throws {
                let deadline = ContinuousClock.now + .seconds(5)
                while !recorded().contains("x-scheme-handler/https=firefox.desktop"), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(recorded().contains("x-scheme-handler/https=firefox.desktop"), "\(recorded())")
            }
            var daemon: pid_t?
            defer { daemon.map(Binaries.stop) }
            if whileRunning {
                // The daemon sees firefox become the default through its watch on mimeapps.list.
                daemon = try await Binaries.startDaemon(on: s.bus, tree: s.tree)
                try await setDefault("firefox.desktop")
                try await waitForRecord()
            } else {
                // A run of the daemon sees firefox as the default; the switch happens while none runs.
                try await setDefault("firefox.desktop")
                let first = try await Binaries.startDaemon(on: s.bus, tree: s.tree)
                try await waitForRecord()
                Binaries.stop(first)
            }
            try await setDefault("org.openurld.Dispatcher1.desktop")
            let after = try await run(["gio", "mime", "x-scheme-handler/https"], environment: gioEnvironment)
            #expect(after.stdout.hasPrefix("Default application for “x-scheme-handler/https”: org.openurld.Dispatcher1.desktop"), "\(after.stdout)")
            if daemon == nil { daemon = try await Binaries.startDaemon(on: s.bus, tree: s.tree) }
            let shown = try await s.openurl("default", "https").stdout
            #expect(shown == "https  firefox.desktop  (the default before openurld)\n")
            #expect(try DocumentBlocks.output(of: "openurl default https", in: "docs/desktop-integration.md") == shown, "the docs show it")
            // explain says it too, from the daemon's answer.
            let explained = try await s.openurl("explain", "https://undecided.example/").stdout
            #expect(explained.hasSuffix("would be opened with firefox.desktop (the default before openurld)\n"), "\(explained)")
            #expect(try await s.openurl("https://undecided.example/").status == 0)
            #expect(try await s.tree.waitForRecords(1).map(\.app) == ["firefox"])
            // The record is the daemon's, not a copy of mimeapps.list: it still names firefox.
            #expect(recorded().contains("x-scheme-handler/https=firefox.desktop"))
        }
    }

    /// Without any record (openurld made the default before it ever ran), the
    /// documented rule decides, and `default` says so.
    @Test func withoutARecordTheDocumentedRuleDecidesAndSaysSo() async throws {
        try await withSession(daemon: false) { s in
            try s.installDispatcher()
            try s.tree.app("aaa-other.desktop", schemes: ["https"], exec: "recorder other %u")
            try s.tree.app("firefox.desktop", schemes: ["https"], exec: "recorder firefox %u", extra: "Categories=Network;WebBrowser;")
            try s.tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop\n")
            #expect(try await s.openurl("default", "https").stdout
                == "https  firefox.desktop  (a web browser that claims it; no default or record names one)\n")
        }
    }

    /// `set-default` records what it replaces, `--fallback` picks another,
    /// and `unset-default` puts the recorded browser back on a line the
    /// dispatcher leaves empty.
    @Test func setDefaultRecordsTheBrowserBehindItAndUnsetDefaultRestoresIt() async throws {
        try await withSession(daemon: false) { s in
            try s.installDispatcher()
            try s.tree.app("firefox.desktop", schemes: ["http", "https"], exec: "recorder firefox %u", extra: "Categories=WebBrowser;")
            try s.tree.app("chromium.desktop", schemes: ["http", "https"], exec: "recorder chromium %u", extra: "Categories=WebBrowser;")
            try s.tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=firefox.desktop\nx-scheme-handler/http=firefox.desktop\n")
            let set = try await s.openurl("set-default", "https")
            #expect(set.status == 0, "\(set.stderr)")
            let record = s.tree.root + "/state/openurld/previous-defaults.list"
            var text = try String(contentsOfFile: record, encoding: .utf8)
            #expect(text.contains("x-scheme-handler/http=firefox.desktop") && text.contains("x-scheme-handler/https=firefox.desktop"), "\(text)")
            let chosen = try await s.openurl("set-default", "--fallback=chromium.desktop")
            #expect(chosen.status == 0, "\(chosen.stderr)")
            text = try String(contentsOfFile: record, encoding: .utf8)
            #expect(text.contains("x-scheme-handler/https=chromium.desktop"), "\(text)")
            #expect(try await s.openurl("default", "https").stdout == "https  chromium.desktop  (the default before openurld)\n")
            let missing = try await s.openurl("set-default", "--fallback=nowhere.desktop")
            #expect(missing.status == 1 && missing.stderr.contains("nowhere.desktop is not installed"), "\(missing.stderr)")
            // A settings panel leaves the dispatcher alone; undoing it brings the recorded browser back.
            try s.tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop\n")
            let unset = try await s.openurl("unset-default", "https")
            #expect(unset.status == 0, "\(unset.stderr)")
            #expect(try String(contentsOfFile: s.tree.root + "/config/mimeapps.list", encoding: .utf8)
                == "[Default Applications]\nx-scheme-handler/https=chromium.desktop;\n")
        }
    }

    /// On KDE, KIO opens web links with `kdeglobals`' `BrowserApplication`
    /// before it reads mimeapps.list, and `xdg-settings` reports it: it
    /// follows `set-default --browser` and `unset-default --browser`, and
    /// every other byte of the file stays.
    @Test func setDefaultKeepsKDEsBrowserSettingConsistent() async throws {
        try await withSession(daemon: false) { s in
            try s.installDispatcher()
            try s.tree.app("firefox.desktop", schemes: ["http", "https"], exec: "recorder firefox %u", extra: "Categories=WebBrowser;")
            let kdeglobals = """
                [$Version]
                update_info=kded.upd:kde3_xdg_mimeapps

                [General]
                BrowserApplication=firefox.desktop
                TerminalApplication=konsole
                fixed[$e]=Hack,10,-1,5,50,0,0,0,0,0

                [KDE]
                LookAndFeelPackage=org.kde.breeze.desktop

                """
            try s.tree.write("config/kdeglobals", kdeglobals)
            var environment = s.environment
            environment["XDG_CURRENT_DESKTOP"] = "KDE"
            environment["KDE_SESSION_VERSION"] = "5"
            let set = try await run([Binaries.openurl, "set-default", "--browser"], environment: environment)
            #expect(set.status == 0, "\(set.stderr)")
            #expect(set.stdout.contains("BrowserApplication"), "\(set.stdout)")
            let written = try String(contentsOfFile: s.tree.root + "/config/kdeglobals", encoding: .utf8)
            #expect(written == kdeglobals.replacingOccurrences(of: "BrowserApplication=firefox.desktop", with: "BrowserApplication=org.openurld.Dispatcher1.desktop"))
            // What xdg-settings reports on KDE, read by KDE's own kreadconfig5. (Its `check`
            // fails under Debian's /bin/sh on a bash-only substitution, whatever the file says.)
            let reported = try await run(["xdg-settings", "get", "default-web-browser"], environment: environment)
            #expect(reported.stdout == "org.openurld.Dispatcher1.desktop\n", "\(reported.stdout) \(reported.stderr)")
            let unset = try await run([Binaries.openurl, "unset-default", "--browser"], environment: environment)
            #expect(unset.status == 0, "\(unset.stderr)")
            #expect(try String(contentsOfFile: s.tree.root + "/config/kdeglobals", encoding: .utf8) == kdeglobals)
        }
    }

    /// `set-default` edits through a dotfile manager's symlink and keeps
    /// bytes that are not UTF-8 (a Latin-1 comment), as every rewrite does.
    @Test func setDefaultWritesThroughASymlinkAndKeepsEveryOtherByte() async throws {
        try await withSession { s in
            try s.installDispatcher()
            let original = Array("# caf".utf8) + [0xE9] + Array("\n[Default Applications]\nx-scheme-handler/https=browser.desktop;\n".utf8)
            try FileManager.default.createDirectory(atPath: s.tree.root + "/dotfiles", withIntermediateDirectories: true)
            try Data(original).write(to: URL(fileURLWithPath: s.tree.root + "/dotfiles/mimeapps.list"))
            try FileManager.default.createSymbolicLink(atPath: s.tree.root + "/config/mimeapps.list", withDestinationPath: "../dotfiles/mimeapps.list")
            let set = try await s.openurl("set-default", "https")
            #expect(set.status == 0, "\(set.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: s.tree.root + "/config/mimeapps.list") == "../dotfiles/mimeapps.list")
            let after = try [UInt8](Data(contentsOf: URL(fileURLWithPath: s.tree.root + "/dotfiles/mimeapps.list")))
            let expected = Array("# caf".utf8) + [0xE9]
                + Array(("\n[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop;browser.desktop;\n"
                    + "x-scheme-handler/http=org.openurld.Dispatcher1.desktop;browser.desktop;\n").utf8)
            #expect(after == expected, "\(String(decoding: after, as: UTF8.self).debugDescription)")
        }
    }

    @Test func setDefaultAndUnsetDefaultEditOnlyTheirLines() async throws {
        try await withSession { s in
            try s.installDispatcher()
            let original = """
                # my settings, keep this comment
                [Default Applications]
                text/html=browser.desktop
                x-scheme-handler/https = browser.desktop;

                [Added Associations]
                image/png=viewer.desktop;

                """
            try s.tree.write("config/mimeapps.list", original)
            let set = try await s.openurl("set-default")
            #expect(set.status == 0, "\(set.stderr)")
            #expect(set.stdout == """
                http: browser.desktop → org.openurld.Dispatcher1.desktop (browser.desktop kept as fallback)
                https: browser.desktop → org.openurld.Dispatcher1.desktop (browser.desktop kept as fallback)

                """)
            let afterSet = try String(contentsOfFile: s.tree.root + "/config/mimeapps.list", encoding: .utf8)
            #expect(afterSet == """
                # my settings, keep this comment
                [Default Applications]
                text/html=browser.desktop
                x-scheme-handler/https = org.openurld.Dispatcher1.desktop;browser.desktop;
                x-scheme-handler/http=org.openurld.Dispatcher1.desktop;browser.desktop;

                [Added Associations]
                image/png=viewer.desktop;

                """)
            // GLib agrees that the dispatcher is now the default …
            var gioEnvironment = s.tree.environment
            gioEnvironment["GIO_USE_VFS"] = "local"
            let gio = try await run(["gio", "mime", "x-scheme-handler/https"], environment: gioEnvironment)
            #expect(gio.stdout.hasPrefix("Default application for “x-scheme-handler/https”: org.openurld.Dispatcher1.desktop"), "\(gio.stdout)\(gio.stderr)")
            // … while the fallback still finds the browser right after it.
            #expect(try await s.openurl("default", "https").stdout == "https  browser.desktop  (the default before openurld)\n")
            #expect(try await s.openurl("https://after-set-default.example/").status == 0)
            #expect(try await s.tree.waitForRecords(1).first?.app == "browser")
            // Setting twice changes nothing, and says so.
            // `https` alone sets http too: KIO sends http: URLs to the https default.
            #expect(try await s.openurl("set-default", "https").stdout
                == "http: already org.openurld.Dispatcher1.desktop (browser.desktop kept as fallback)\n"
                    + "https: already org.openurld.Dispatcher1.desktop (browser.desktop kept as fallback)\n")
            #expect(try String(contentsOfFile: s.tree.root + "/config/mimeapps.list", encoding: .utf8) == afterSet)

            let unset = try await s.openurl("unset-default")
            #expect(unset.status == 0)
            #expect(unset.stdout == """
                http: org.openurld.Dispatcher1.desktop → browser.desktop
                https: org.openurld.Dispatcher1.desktop → browser.desktop

                """)
            #expect(try String(contentsOfFile: s.tree.root + "/config/mimeapps.list", encoding: .utf8) == """
                # my settings, keep this comment
                [Default Applications]
                text/html=browser.desktop
                x-scheme-handler/https = browser.desktop;
                x-scheme-handler/http=browser.desktop;

                [Added Associations]
                image/png=viewer.desktop;

                """)
        }
    }

    /// A default naming a desktop file the desktop cannot find is ignored,
    /// so links would bypass openurld: set-default refuses, and says what to
    /// install (issue 14, item 7).
    @Test func setDefaultRefusesWhenTheDispatcherIsNotInstalled() async throws {
        try await withSession(daemon: false) { s in
            let missing = try await s.openurl("set-default")
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("org.openurld.Dispatcher1.desktop is not installed in any applications directory ("
                + s.tree.root + "/data/applications, "), "\(missing.stderr)")
            #expect(missing.stderr.contains("install openurld first"))
            #expect(!FileManager.default.fileExists(atPath: s.tree.root + "/config/mimeapps.list"))
            try s.tree.app("org.openurld.Dispatcher1.desktop", schemes: ["http", "https"], extra: "DBusActivatable=true")
            let noService = try await s.openurl("set-default")
            #expect(noService.status == 1)
            #expect(noService.stderr.contains("org.openurld.Dispatcher1.service is in none of " + s.tree.root + "/data/dbus-1/services"),
                    "\(noService.stderr)")
            #expect(!FileManager.default.fileExists(atPath: s.tree.root + "/config/mimeapps.list"))
        }
    }

    /// `--browser` sets what desktops set for a web browser.
    @Test func setDefaultBrowserSetsTheWholeGroup() async throws {
        try await withSession(daemon: false) { s in
            // The shipped desktop file, as installed.
            try FileManager.default.createSymbolicLink(atPath: s.tree.root + "/bin/openurl", withDestinationPath: Binaries.openurl)
            try s.tree.write("data/applications/org.openurld.Dispatcher1.desktop",
                try String(contentsOfFile: Binaries.repository + "/packaging/org.openurld.Dispatcher1.desktop.in", encoding: .utf8)
                    .replacingOccurrences(of: "@BINDIR@", with: s.tree.root + "/bin"))
            try s.tree.write("data/dbus-1/services/org.openurld.Dispatcher1.service", "[D-BUS Service]\nName=org.openurld.Dispatcher1\n")
            try s.tree.write("data/applications/browser.desktop", """
                [Desktop Entry]
                Type=Application
                Name=browser
                Exec=recorder browser %u
                MimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;application/xhtml+xml;

                """)
            let set = try await s.openurl("set-default", "--browser")
            #expect(set.status == 0, "\(set.stderr)")
            #expect(set.stdout == """
                http: browser.desktop → org.openurld.Dispatcher1.desktop (browser.desktop kept as fallback)
                https: browser.desktop → org.openurld.Dispatcher1.desktop (browser.desktop kept as fallback)
                about: (none) → org.openurld.Dispatcher1.desktop (no other application for it: such URLs will be rejected)
                unknown: (none) → org.openurld.Dispatcher1.desktop (no other application for it: such URLs will be rejected)
                text/html: browser.desktop → org.openurld.Dispatcher1.desktop (browser.desktop kept as fallback)
                application/xhtml+xml: browser.desktop → org.openurld.Dispatcher1.desktop (browser.desktop kept as fallback)

                """, "\(set.stdout)")
            // xdg-settings, as a desktop's own tool, now counts openurld as the default browser.
            var environment = s.environment
            environment["XDG_CURRENT_DESKTOP"] = "X-Generic"
            let check = try await run(["xdg-settings", "check", "default-web-browser", "org.openurld.Dispatcher1.desktop"], environment: environment)
            #expect(check.stdout == "yes\n", "\(check.stdout)\(check.stderr)")
            // GNOME Settings' Web row offers GLib's recommended applications for
            // x-scheme-handler/http and sets the row's other types from the
            // app's MimeType: the dispatcher is among them, and claims text/html.
            var gioEnvironment = s.tree.environment
            gioEnvironment["GIO_USE_VFS"] = "local"
            let http = try await run(["gio", "mime", "x-scheme-handler/http"], environment: gioEnvironment)
            let recommended = http.stdout.components(separatedBy: "Recommended applications:").last ?? ""
            #expect(recommended.contains("org.openurld.Dispatcher1.desktop"), "\(http.stdout)")
            let html = try await run(["gio", "mime", "text/html"], environment: gioEnvironment)
            #expect(html.stdout.hasPrefix("Default application for “text/html”: org.openurld.Dispatcher1.desktop"), "\(html.stdout)")
        }
    }

    @Test func aMimeappsListTooLargeToReadIsNeverReplaced() async throws {
        try await withSession { s in
            let huge = "[Default Applications]\n" + String(repeating: "# keep me\n", count: 120_000)
            try s.tree.write("config/mimeapps.list", huge)
            let result = try await s.openurl("set-default")
            #expect(result.status == 1)
            #expect(result.stderr.contains("is 1200023 bytes, over the 1 MiB (1048576 bytes) openurld reads; not changed"), "\(result.stderr)")
            #expect(try String(contentsOfFile: s.tree.root + "/config/mimeapps.list", encoding: .utf8) == huge)
        }
    }

    @Test func anUnparseableMimeappsListIsLeftAlone() async throws {
        try await withSession { s in
            let broken = "[Default Applications\nthis is not a keyfile\n"
            try s.tree.write("config/mimeapps.list", broken)
            let result = try await s.openurl("set-default")
            #expect(result.status == 1)
            #expect(result.stderr.contains("line 1: a group header must look like [Name]; not changed"))
            #expect(try String(contentsOfFile: s.tree.root + "/config/mimeapps.list", encoding: .utf8) == broken)
        }
    }


}
