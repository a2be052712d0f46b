import DBus
import Desktop
import DispatcherAPI
import Foundation
import OpenURLDaemon
import Synchronization
import Testing
import TestSupport

/// The real dispatcher opening URLs with apps from a temporary XDG tree.
@Suite(.timeLimit(.minutes(1)))
struct LaunchTests {
    static let reaper = ChildReaper()

    func withLauncher(_ tree: XDGTree, _ body: (DaemonHarness) async throws -> Void) async throws {
        try await DaemonHarness.with(opener: { connection in
            DesktopURLOpener(environment: tree.environment, connection: connection, reaper: Self.reaper)
        }, body)
    }

    static let hostileURLs = [
        "https://example.com/a%20b", "https://example.com/\"quoted\"", "https://example.com/'single'",
        "https://example.com/$(id)", "https://example.com/`id`", "https://example.com/a;b|c&d",
        "https:-oProxyCommand=x", "https:--gpu-launcher=x", "https://example.com/*?x=1#frag",
    ]

    @Test func theDefaultAppGetsTheExactURLAsOneArgument() async throws {
        let tree = try XDGTree()
        try tree.app("browser.desktop", schemes: ["https"], exec: "recorder browser --new-tab %u")
        try await withLauncher(tree) { d in
            let client = try await d.bus.connect()
            for url in Self.hostileURLs {
                let (accepted, result) = try await d.openWithOptions(client, url)
                #expect(accepted, "\(url): \(result)")
                #expect(result["application"] == Variant("browser.desktop"))
            }
            let records = try await tree.waitForRecords(Self.hostileURLs.count)
            #expect(Set(records.map(\.arguments)) == Set(Self.hostileURLs.map { ["--new-tab", $0] }))
        }
    }

    @Test func oddlyQuotedExecLinesStillPassTheURLAsOneArgument() async throws {
        let tree = try XDGTree()
        try tree.app("quoted.desktop", schemes: ["https"], exec: "\"recorder\" \"quoted \\\"x\\\"\" %U")
        try await withLauncher(tree) { d in
            let client = try await d.bus.connect()
            #expect(try await d.open(client, "https://e.com/$(id);`x`"))
            let records = try await tree.waitForRecords(1)
            #expect(records.first?.app == "quoted \"x\"")
            #expect(records.first?.arguments == ["https://e.com/$(id);`x`"])
        }
    }

    @Test func theDispatcherListedFirstFallsThrough() async throws {
        let tree = try XDGTree()
        try tree.app("org.openurld.Dispatcher1.desktop", schemes: ["https"], exec: "openurl %U", extra: "DBusActivatable=true")
        try tree.app("firefox.desktop", schemes: ["https"])
        try tree.write("config/mimeapps.list", "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop;firefox.desktop;\n")
        try await withLauncher(tree) { d in
            let client = try await d.bus.connect()
            let clock = ContinuousClock()
            let start = clock.now
            let (accepted, result) = try await d.openWithOptions(client, "https://x/")
            #expect(accepted && result["application"] == Variant("firefox.desktop"))
            // Well under the 20 s walk deadline a loop through itself would run into.
            #expect(clock.now - start < .seconds(10))
            #expect(try await tree.waitForRecords(1).first?.app == "firefox")
        }
    }

    /// A program only just written, still open for writing somewhere (as in
    /// the child of another thread of its writer, between fork and exec), is
    /// busy, not broken: the launch waits for it instead of failing.
    @Test func aProgramStillOpenForWritingIsWaitedFor() async throws {
        let tree = try XDGTree()
        let script = try HeldScript(in: tree, name: "fresh", content: "#!/bin/sh\nexec recorder fresh \"$@\"\n")
        try tree.app("fresh.desktop", schemes: ["https"], exec: "fresh %u")
        // Let go from a thread of its own, 50 ms in: a test task's sleep can
        // run long on a loaded machine, past the launch's 500 ms of waiting.
        async let letGo: Void = withCheckedContinuation { continuation in
            Thread {
                usleep(50_000)
                script.letGo()
                continuation.resume()
            }.start()
        }
        try await withLauncher(tree) { d in
            let client = try await d.bus.connect()
            let (accepted, result) = try await d.openWithOptions(client, "https://fresh.example/")
            #expect(accepted, "\(result)")
            #expect(try await tree.waitForRecords(1).first?.app == "fresh")
        }
        await letGo
    }

    @Test func failuresAreReportedWithReasons() async throws {
        let tree = try XDGTree()
        try tree.write("bin/bad-interpreter", "#!/nonexistent/interpreter\n", executable: true)
        try tree.app("broken.desktop", schemes: ["broken"], exec: "bad-interpreter %u")
        try tree.app("no-url.desktop", schemes: ["nourl"], exec: "recorder no-url")
        try tree.app("terminal.desktop", schemes: ["term"], extra: "Terminal=true")
        try await withLauncher(tree) { d in
            let client = try await d.bus.connect()
            let cases: [(String, String)] = [
                ("gopher://x", "no-application"), ("broken:x", "launch-failed"), ("nourl:x", "launch-failed"),
                ("term:x", "launch-failed"), ("javascript:alert(1)", "refused"), ("data:text/html,x", "refused"),
                ("vbscript:x", "refused"), ("file://remote.example/etc/passwd", "refused"), ("file:///etc/passwd", "no-application"),
            ]
            for (url, outcome) in cases {
                let (accepted, result) = try await d.openWithOptions(client, url)
                #expect(!accepted, "\(url)")
                #expect(result["outcome"] == Variant(outcome), "\(url): \(result)")
                #expect(result["message"]?.get(String.self)?.isEmpty == false)
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(tree.recorded().isEmpty, "nothing may have been launched")
        }
    }

    @Test func launchedAppsAreDetachedReapedAndHoldNoBusSocket() async throws {
        let tree = try XDGTree()
        try tree.app("browser.desktop", schemes: ["https"])
        try await withLauncher(tree) { d in
            let client = try await d.bus.connect()
            #expect(try await d.openWithOptions(client, "https://x/", ["activation-token": Variant("token-42")]).0)
            let record = try #require(try await tree.waitForRecords(1).first)
            #expect(!record.descriptors.contains { $0.hasPrefix("socket:") }, "\(record.descriptors)")
            #expect(record.descriptors.filter { $0 == "/dev/null" }.count >= 2)
            #expect(record.environment["XDG_ACTIVATION_TOKEN"] == "token-42")
            #expect(record.environment["DESKTOP_STARTUP_ID"] == "token-42")
            #expect(record.environment["SESSION_ID"] == String(record.pid), "leads its own session (setsid)")
            // Reaped: the process entry disappears (a zombie would stay as state Z).
            var gone = false
            for _ in 0..<200 {
                if !FileManager.default.fileExists(atPath: "/proc/\(record.pid)") { gone = true; break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(gone, "pid \(record.pid) still exists: \((try? String(contentsOfFile: "/proc/\(record.pid)/stat", encoding: .utf8)) ?? "")")
            // Without a token, none is inherited.
            #expect(try await d.open(client, "https://y/"))
            let second = try await tree.waitForRecords(2)
            #expect(second.last?.environment["XDG_ACTIVATION_TOKEN"] == nil)
        }
    }

    @Test func dbusActivatableAppsReceiveOpen() async throws {
        let tree = try XDGTree()
        try tree.app("org.example.Fake.desktop", schemes: ["fake"], extra: "DBusActivatable=true")
        try await withLauncher(tree) { d in
            let fake = try await d.bus.connect()
            let received = Mutex<[([String], [String: Variant])]>([])
            fake.export([ExportedInterface("org.freedesktop.Application", methods: [
                ExportedMethod("Open", arguments: [Argument("uris", .array(.string)), Argument("platform_data", .dictionary(key: .string, value: .variant))]) { call throws(DBusError) in
                    let (uris, data) = try call.arguments.decode([String].self, [String: Variant].self)
                    received.withLock { $0.append((uris, data)) }
                    return []
                },
            ])], at: "/org/example/Fake")
            #expect(try await fake.requestName("org.example.Fake") == .primaryOwner)
            let client = try await d.bus.connect()
            let (accepted, result) = try await d.openWithOptions(client, "fake:thing", ["activation-token": Variant("tok")])
            #expect(accepted && result["application"] == Variant("org.example.Fake.desktop"))
            let calls = received.withLock { $0 }
            #expect(calls.count == 1)
            #expect(calls.first?.0 == ["fake:thing"])
            #expect(calls.first?.1["activation-token"] == Variant("tok"))
            #expect(tree.recorded().isEmpty, "activated over D-Bus, not spawned")
        }
    }

    /// One deadline covers the whole walk, launch included (issue 15, item 7):
    /// an activatable default whose owner never answers cannot hold the
    /// caller past it, although the launcher would wait 10 s on its own.
    @Test func theWalkDeadlineCoversTheLaunch() async throws {
        let tree = try XDGTree()
        try tree.app("org.example.Hung.desktop", schemes: ["https"], extra: "DBusActivatable=true")
        try await DaemonHarness.with(walkDeadline: .seconds(1), opener: { connection in
            DesktopURLOpener(environment: tree.environment, connection: connection, reaper: Self.reaper)
        }) { d in
            let hung = try await d.bus.connect()
            defer { hung.close() }
            hung.export([ExportedInterface("org.freedesktop.Application", methods: [
                ExportedMethod("Open", arguments: [Argument("uris", .array(.string)), Argument("platform_data", .dictionary(key: .string, value: .variant))],
                               asyncHandler: { _ in
                                   try? await Task.sleep(for: .seconds(60))
                                   return []
                               }),
            ])], at: "/org/example/Hung")
            #expect(try await hung.requestName("org.example.Hung") == .primaryOwner)
            let client = try await d.bus.connect()
            defer { client.close() }
            let start = ContinuousClock.now
            let (accepted, result) = try await d.openWithOptions(client, "https://x.example/")
            let took = ContinuousClock.now - start
            #expect(!accepted && result["outcome"] == Variant("launch-failed"), "\(result)")
            // The launcher's own limit is 10 s; the walk's is 1 s. The bound
            // sits far from both, so a loaded machine cannot fail it.
            #expect(took < .seconds(6), "\(took)")
        }
    }

    @Test func aSystemdUserManagerGetsAScopeAndGivesTheEnvironment() async throws {
        let tree = try XDGTree()
        try tree.app("org.example.Browser.desktop", schemes: ["https"])
        try await withLauncher(tree) { d in
            let systemd = try await FakeSystemdManager(on: d.bus, environment: ["DISPLAY=:42", "WAYLAND_DISPLAY=wayland-7"])
            let client = try await d.bus.connect()
            #expect(try await d.open(client, "https://x/"))
            let record = try #require(try await tree.waitForRecords(1).first)
            #expect(record.environment["DISPLAY"] == ":42")
            #expect(record.environment["WAYLAND_DISPLAY"] == "wayland-7")
            let call = try #require(try await systemd.waitForTransientUnits(1).first)
            let name = try #require(call[0].string)
            #expect(name.hasPrefix("app-openurld-org.example.Browser-") && name.hasSuffix(".scope"))
            #expect(call[1] == .string("fail"))
            guard case .array(_, let properties) = call[2] else { Issue.record("properties are not an array"); return }
            let pids = properties.first { $0 == .structure([.string("PIDs"), .variant(.array(.uint32, [.uint32(UInt32(record.pid))]))]) }
            #expect(pids != nil, "\(properties)")
        }
    }
}
