import DBus
import Desktop
import Foundation
import Routing
import Spawn
import Testing
import TestSupport

/// Failures nobody else will show the person reach the desktop's
/// notification server (issue 29): the real `openurl` and `openurld` on a
/// private bus, with a stand-in `org.freedesktop.Notifications`.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct NotificationTests {
    struct Session {
        let bus: PrivateBus
        let tree: XDGTree
        var environment: [String: String] {
            var environment = tree.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            return environment
        }

        func openurl(_ arguments: String..., environment extra: [String: String] = [:]) async throws -> CommandResult {
            try await run([Binaries.openurl] + arguments, environment: environment.merging(extra) { $1 })
        }
    }

    /// A tree whose https links open in a recorder, `tel:` has no application,
    /// and `openurld-chooser` (the preferences window) is a recorder too.
    func withSession(daemon: Bool = true, daemonLog: Int32 = 2, _ body: (Session) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let tree = try XDGTree()
            try tree.app("browser.desktop", schemes: ["http", "https"])
            try tree.write("bin/openurld-chooser", "#!/bin/sh\nexec recorder openurld-chooser \"$@\"\n", executable: true)
            let pid = daemon ? try await Binaries.startDaemon(on: bus, tree: tree, stderr: daemonLog) : nil
            defer { pid.map(Binaries.stop) }
            try await body(Session(bus: bus, tree: tree))
        }
    }

    /// The Exec path as KIO, xdg-open and terminals take it: `openurl` with
    /// its standard error going to a pipe (the journal, in a session).
    @Test func theCLINotifiesOnlyWithoutATerminal() async throws {
        try await withSession { s in
            let server = try await FakeNotificationServer(on: s.bus)
            let failed = try await s.openurl("tel:+15550100")
            #expect(failed.status != 0)
            let shown = try #require(try await server.waitForNotifications(1).first)
            #expect(shown.appName == "openurld" && shown.summary == "Link not opened")
            #expect(shown.body == "a tel: link: no application is set up for x-scheme-handler/tel", "\(shown.body)")
            #expect(shown.hints["desktop-entry"]?.get(String.self) == "org.openurld.Dispatcher1")
            #expect(shown.actions == ["default", "Preferences", "preferences", "Preferences"])

            // --quiet: nothing more. Opened links and links a rule chose not to open: nothing either.
            #expect(try await s.openurl("-q", "tel:+15550101").status != 0)
            #expect(try await s.openurl("https://opened.example/").status == 0)
            try s.tree.write("config/openurld/rules.d/block.rules", "[Rule block]\nHosts=blocked.example\nResult=discarded\n")
            for _ in 0..<500 where !(try await s.openurl("rules").stdout.contains("block")) { try await Task.sleep(for: .milliseconds(10)) }
            let blocked = try await s.openurl("https://blocked.example/")
            #expect(blocked.status == 1, "\(blocked.stderr)")

            // With a terminal on standard error the person reads the message there: no notification.
            let terminal = try await run(["script", "-qec", Binaries.openurl + " tel:+15550102", "/dev/null"], environment: s.environment)
            #expect(terminal.stdout.contains("no-application"), "\(terminal.stdout)")

            // The person's setting turns them off, as the docs write it.
            let setting = try #require(try DocumentBlocks.blocks(in: "docs/desktop-integration.md", language: "ini").first { $0.contains("[Notifications]") })
            try s.tree.write("config/openurld/openurld.conf", setting)
            #expect(try await s.openurl("tel:+15550103").status != 0)

            // A sentinel the test knows is shown, so that everything before it was, or was not, sent.
            try FileManager.default.removeItem(atPath: s.tree.root + "/config/openurld/openurld.conf")
            #expect(try await s.openurl("tel:+15550104").status != 0)
            let all = try await server.waitForNotifications(2)
            #expect(all.count == 2, "\(all.map(\.body))")
        }
    }

    /// A link the daemon refuses without a walk (answered on the bus's loop,
    /// `Router.routeAtOnce`) is notified as a walked one is.
    @Test func aLinkRefusedAtOnceIsNotifiedToo() async throws {
        try await withSession { s in
            let server = try await FakeNotificationServer(on: s.bus)
            #expect(try await s.openurl("javascript:alert(1)").status == 1)
            let shown = try #require(try await server.waitForNotifications(1).first)
            #expect(shown.summary == "Link not opened")
            #expect(shown.body == "a javascript: link: " + RefusedScheme.javascript.reason, "\(shown.body)")
        }
    }

    /// A real notification server, dunst under Xvfb, shows what openurld
    /// sends: read back from dunst's own history once the person would have
    /// closed it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dunst"), "dunst is not installed"))
    func aRealNotificationServerShowsIt() async throws {
        try await withXvfb { x in
            try await withSession { s in
                var environment = s.environment
                environment["DISPLAY"] = x.display
                let dunst = try spawn("/usr/bin/dunst", arguments: ["dunst", "-config", "/dev/null"],
                                      environment: environment.map { "\($0.key)=\($0.value)" })
                defer { Binaries.stop(dunst) }
                let watcher = try await s.bus.connect()
                defer { watcher.close() }
                for _ in 0..<500 where try await watcher.owner(of: "org.freedesktop.Notifications") == nil {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(try await s.openurl("tel:+15550100").status != 0)
                var displayed = ""
                for _ in 0..<500 where displayed != "1\n" {
                    displayed = try await run(["dunstctl", "count", "displayed"], environment: environment).stdout
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(displayed == "1\n")
                _ = try await run(["dunstctl", "close-all"], environment: environment)
                let history = try await run(["dunstctl", "history"], environment: environment).stdout
                #expect(history.contains("Link not opened") && history.contains("a tel: link: no application is set up for x-scheme-handler/tel"),
                        "\(history)")
                #expect(history.contains("\"appname\"") && history.contains("openurld"), "\(history)")
            }
        }
    }

    /// Clicking the action opens the preferences window, with the server's
    /// activation token; the same signal from anyone else does nothing.
    @Test func aForgedActionIsIgnored() async throws {
        try await withSession { s in
            let server = try await FakeNotificationServer(on: s.bus)
            #expect(try await s.openurl("tel:+15550100").status != 0)
            let shown = try #require(try await server.waitForNotifications(1).first)
            // Another peer sends the same signals first, from the same path and interface.
            let forger = try await s.bus.connect()
            defer { forger.close() }
            try forger.emit("ActivationToken", on: FakeNotificationServer.interface, from: FakeNotificationServer.objectPath,
                            arguments: [.uint32(shown.id), .string("forged-token")])
            try forger.emit("ActionInvoked", on: FakeNotificationServer.interface, from: FakeNotificationServer.objectPath,
                            arguments: [.uint32(shown.id), .string("preferences")])
            _ = try await forger.owner(of: "org.freedesktop.Notifications")  // a round trip: the bus has routed the forgery
            try server.invoke("preferences", of: shown.id, activationToken: "real-token")
            let started = try #require(try await s.tree.waitForRecords(1).first)
            #expect(started.app == "openurld-chooser" && started.arguments.isEmpty)
            #expect(started.environment["XDG_ACTIVATION_TOKEN"] == "real-token", "the forged signals were taken")
        }
    }

    /// A rule that cannot do its work is passed over, so the caller hears
    /// only that the link opened: the daemon shows the failure whoever asked,
    /// `--quiet` (one caller's wish for its own failures) included.
    @Test func aRuleThatFailsIsShownThoughTheLinkOpens() async throws {
        try await withSession { s in
            let server = try await FakeNotificationServer(on: s.bus)
            try s.tree.write("config/openurld/rules.d/broken.rules",
                             "[Rule broken]\nHosts=failing.example\nExec=/nonexistent/program %u\n")
            for _ in 0..<500 where !(try await s.openurl("rules").stdout.contains("broken")) { try await Task.sleep(for: .milliseconds(10)) }
            let opened = try await s.openurl("-q", "https://failing.example/secret")
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(try await s.tree.waitForRecords(1).map(\.app) == ["browser"], "the walk went on to the default")
            let shown = try #require(try await server.waitForNotifications(1).first)
            #expect(shown.summary == "Rule “broken” failed", "\(shown.summary)")
            #expect(shown.body.hasPrefix("https://failing.example: ") && shown.body.contains("/nonexistent/program"), "\(shown.body)")
            #expect(!shown.body.contains("secret"), "only scheme and host are shown")
        }
    }

    /// Ten failures at once: three notifications; the rest are counted, not shown.
    @Test func aFloodOfFailuresIsRateLimited() async throws {
        try await withSession { s in
            let server = try await FakeNotificationServer(on: s.bus)
            for index in 0..<10 { #expect(try await s.openurl("tel:+1555010\(index)").status != 0) }
            #expect(try await s.openurl("https://sentinel.example/").status == 0)
            _ = try await s.tree.waitForRecords(1)
            #expect(try await server.waitForNotifications(3).count == 3)
            #expect(server.received.count == 3)
        }
    }

    /// Without the daemon, `openurl` shows its own failure, rate-limited
    /// across runs through `$XDG_RUNTIME_DIR/openurld/notified`.
    @Test func withoutTheDaemonOpenurlNotifiesItself() async throws {
        try await withSession(daemon: false) { s in
            let server = try await FakeNotificationServer(on: s.bus)
            let runtime = ["XDG_RUNTIME_DIR": s.tree.root + "/home"]
            for index in 0..<5 { #expect(try await s.openurl("tel:+1555010\(index)", environment: runtime).status != 0) }
            let shown = try await server.waitForNotifications(3)
            #expect(shown.count == 3)
            #expect(shown.first?.body == "a tel: link: no application is set up for x-scheme-handler/tel", "\(shown.first?.body ?? "")")
            #expect(shown.first?.actions == [], "openurl exits: it offers no action it could not answer")
            let record = try String(contentsOfFile: s.tree.root + "/home/openurld/notified", encoding: .utf8)
            #expect(record.hasSuffix("dropped=2\n"), "\(record)")
        }
    }

    /// A server that never answers costs the walk nothing: the daemon
    /// answers `openurl` first, and only then gives up on the server.
    @Test func aSilentServerDelaysNothing() async throws {
        let log = try makeTemporaryDirectory(prefix: "openurld-log") + "/daemon.log"
        let descriptor = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(descriptor) }
        try await withSession(daemonLog: descriptor) { s in
            let server = try await FakeNotificationServer(on: s.bus, silent: true)
            #expect(try await s.openurl("tel:+15550100").status != 0)
            // Answered before the daemon's 2 s on Notify ran out.
            #expect(!(try String(contentsOfFile: log, encoding: .utf8)).contains("cannot show a notification"))
            #expect(try await server.waitForNotifications(1).count == 1)
            var text = ""
            for _ in 0..<500 where !text.contains("cannot show a notification") {
                try await Task.sleep(for: .milliseconds(10))
                text = try String(contentsOfFile: log, encoding: .utf8)
            }
            #expect(text.contains("cannot show a notification"), "\(text)")
            #expect(try await s.openurl("https://still-served.example/").status == 0)
        }
    }

    /// Peer text is escaped as everywhere: control and bidi characters
    /// spelled out, markup made text where the server renders markup.
    @Test func peerTextIsEscaped() throws {
        let url = try ValidatedURL("https://example.com/secret-token?x=1")
        let notice = FailureNotice(.notOpened, url: url, reason: "<a href=\"https://evil.example\">click</a> \u{202E}gpj.exe\u{1B}[2J")
        #expect(notice.body(markup: true)
            == "https://example.com: &lt;a href=&quot;https://evil.example&quot;&gt;click&lt;/a&gt; \\u{202E}gpj.exe\\u{1B}[2J")
        #expect(notice.body(markup: false) == "https://example.com: <a href=\"https://evil.example\">click</a> \\u{202E}gpj.exe\\u{1B}[2J")
        #expect(!notice.body(markup: false).contains("secret-token"), "only scheme and host are shown")
        let rule = FailureNotice(.ruleFailed("evil\u{202E}<b>"), url: url, reason: "x")
        #expect(rule.summary == "Rule “evil\\u{202E}<b>” failed")
        #expect(FailureNotice(.notOpened, url: url, reason: String(repeating: "x", count: 1000)).body(markup: false).count < 450)
    }

    @Test func theRateLimitCountsWhatItDropsAndTakesFutureTimesAsNow() {
        var limit = NoticeRateLimit()
        let second: UInt64 = 1_000_000_000
        #expect(limit.admit(at: 100 * second) == 0)
        #expect(limit.admit(at: 101 * second) == 0)
        #expect(limit.admit(at: 102 * second) == 0)
        #expect(limit.admit(at: 103 * second) == nil)
        #expect(limit.admit(at: 104 * second) == nil)
        #expect(limit.admit(at: 131 * second) == 2, "the first one left the window; the two dropped are said")
        var future = NoticeRateLimit(shown: [UInt64.max, UInt64.max, UInt64.max])
        #expect(future.admit(at: 10 * second) == nil)
        #expect(future.admit(at: 41 * second) == 1, "a time in the future silences for one window at most")
        #expect(FailureNotice(.notOpened, url: try! ValidatedURL("tel:+1"), reason: "r").body(markup: false, alsoNotShown: 2)
            .hasSuffix("(and 2 more not shown; see the journal: journalctl --user -u openurld)"))
    }
}
