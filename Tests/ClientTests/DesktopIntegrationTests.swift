import DBus
import DispatcherAPI
import Foundation
import Spawn
import Testing
import TestSupport

/// The ways real desktop programs reach openurld, each with the real peer:
/// a GTK 4 program with the display's launch context, `gio open`,
/// `xdg-open` per desktop, and the OpenURI portal with its GTK backend
/// (issue 14). The daemon is installed with `make install-files` and
/// started cold by D-Bus activation from its service file each time.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DesktopIntegrationTests {
    /// An installed openurld, a tree whose default browser is the dispatcher
    /// (with the recorder `browser.desktop` after it), and a private bus
    /// that can activate it.
    struct Session {
        let prefix: String
        let tree: XDGTree
        let bus: PrivateBus
        let environment: [String: String]

        /// Whether the dispatcher runs (it must not, before the first call).
        func dispatcherRuns() async throws -> Bool {
            let watcher = try await bus.connect()
            defer { watcher.close() }
            return try await watcher.owner(of: DispatcherAPI.busName) != nil
        }
    }

    /// The portal's own D-Bus services, copied one by one, so that nothing
    /// else from the machine can be activated on the test bus.
    static let portalServices = [
        "org.freedesktop.portal.Desktop.service", "org.freedesktop.impl.portal.desktop.gtk.service",
        "org.freedesktop.impl.portal.PermissionStore.service",
    ]

    static var portalInstalled: Bool {
        FileManager.default.fileExists(atPath: "/usr/libexec/xdg-desktop-portal")
            && FileManager.default.fileExists(atPath: "/usr/libexec/xdg-desktop-portal-gtk")
    }

    func withSession(display: String? = nil, extra: [String: String] = [:], portal: Bool = false, _ body: (Session) async throws -> Void) async throws {
        let prefix = try makeTemporaryDirectory(prefix: "openurld-desktop")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        _ = try await InstallTests.install(["PREFIX=" + prefix])
        let tree = try XDGTree()
        try tree.app("browser.desktop", schemes: ["http", "https"])
        try tree.write("config/mimeapps.list", """
            [Default Applications]
            x-scheme-handler/https=org.openurld.Dispatcher1.desktop;browser.desktop;
            x-scheme-handler/http=org.openurld.Dispatcher1.desktop;browser.desktop;
            x-scheme-handler/tel=org.openurld.Dispatcher1.desktop;

            """)
        var environment = tree.environment
        environment["XDG_DATA_DIRS"] = prefix + "/share:" + tree.root + "/usr/share"
        environment["XDG_RUNTIME_DIR"] = tree.root + "/home"
        environment["GIO_USE_VFS"] = "local"
        if let display { environment["DISPLAY"] = display }
        environment.merge(extra) { $1 }
        var services = [prefix + "/share/dbus-1/services"]
        var systemBus: PrivateBus?
        if portal {
            let directory = tree.root + "/portal-services"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for name in Self.portalServices {
                try FileManager.default.copyItem(atPath: "/usr/share/dbus-1/services/" + name, toPath: directory + "/" + name)
            }
            services.append(directory)
            // The GTK backend needs GSettings schemas and a system bus; the
            // bus is a private one too.
            environment["GSETTINGS_SCHEMA_DIR"] = "/usr/share/glib-2.0/schemas"
            systemBus = try PrivateBus()
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = systemBus!.address
        }
        defer { systemBus?.stop() }
        try await withPrivateBus(serviceDirectories: services, environment: environment) { bus in
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            let session = Session(prefix: prefix, tree: tree, bus: bus, environment: environment)
            #expect(try await session.dispatcherRuns() == false)
            try await body(session)
        }
    }

    /// GIO adds a startup-notification ID to `Open`'s platform data only for
    /// a `StartupNotify=true` desktop file; with the display's launch context
    /// (X11 under Xvfb) the ID reaches the launched app as both variables.
    @Test func aGTKLaunchContextsTokenReachesTheLaunchedApp() async throws {
        let program = try await Peers.build("gtk-open-uri", packages: ["gtk4"])
        try await withXvfb { x in
            try await withSession(display: x.display) { s in
                let result = try await run([program, "https://gtk.example/a"], environment: s.environment)
                #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
                let started = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("launch-started ") })
                #expect(started.hasPrefix("launch-started org.openurld.Dispatcher1.desktop {'startup-notification-id': <'"), "\(started)")
                let id = try #require(started.split(separator: "'").dropFirst(3).first.map(String.init))
                let record = try #require(try await s.tree.waitForRecords(1).first)
                #expect(record.app == "browser" && record.arguments == ["https://gtk.example/a"])
                #expect(record.environment["DESKTOP_STARTUP_ID"] == id)
                #expect(record.environment["XDG_ACTIVATION_TOKEN"] == id)

                // What the walk could not open is an error GTK reports.
                let failed = try await run([program, "tel:+15550100"], environment: s.environment)
                #expect(failed.status == 1)
                #expect(failed.stdout.contains("failed: 1 of 1 URI not opened: 'tel:+15550100' (no-application"), "\(failed.stdout)")
            }
        }
    }

    /// `gio open`: the DBusActivatable path, the daemon started cold.
    @Test func gioOpenActivatesTheDaemonAndReportsWhatWasNotOpened() async throws {
        try await withSession { s in
            let opened = try await run(["gio", "open", "https://gio.example/b"], environment: s.environment)
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(try await s.tree.waitForRecords(1).first?.arguments == ["https://gio.example/b"])
            #expect(try await s.dispatcherRuns())
            let refused = try await run(["gio", "open", "tel:+15550100"], environment: s.environment)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("1 of 1 URI not opened: 'tel:+15550100' (no-application"), "\(refused.stderr)")
        }
    }

    /// `xdg-open` picks its path by desktop: what reaches openurld, and what does not.
    @Test func xdgOpenOnEachDesktop() async throws {
        try await withXvfb { x in
            // Generic desktop with a display: the desktop file's Exec (openurl %U).
            try await withSession(display: x.display) { s in
                let result = try await run(["xdg-open", "https://generic.example/"], environment: s.environment)
                #expect(result.status == 0, "\(result.stderr)")
                let record = try #require(try await s.tree.waitForRecords(1).first)
                #expect(record.app == "browser" && record.arguments == ["https://generic.example/"])
                #expect(try await s.dispatcherRuns(), "openurl should have gone through the daemon")
            }
            // GNOME: xdg-open calls gio open.
            try await withSession(display: x.display, extra: ["XDG_CURRENT_DESKTOP": "GNOME"]) { s in
                let result = try await run(["xdg-open", "https://gnome.example/"], environment: s.environment)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try await s.tree.waitForRecords(1).first?.arguments == ["https://gnome.example/"])
            }
            // KDE: xdg-open runs kde-open5, that is KIO, which reads the same
            // mimeapps.list defaults and runs the dispatcher's Exec (openurl %U).
            try await withSession(display: x.display, extra: ["XDG_CURRENT_DESKTOP": "KDE", "KDE_SESSION_VERSION": "5"]) { s in
                // KService finds applications through the menu it ships (libkf5service-data), which
                // the tree's own XDG_CONFIG_DIRS lacks; a copy of it, not the machine's /etc/xdg.
                try s.tree.write("etc-xdg/menus/kf5-applications.menu", try String(contentsOfFile: "/etc/xdg/menus/kf5-applications.menu", encoding: .utf8))
                chmod(s.environment["XDG_RUNTIME_DIR"]!, 0o700)  // as Qt insists
                for (index, command) in [["xdg-open"], ["kde-open5"], ["kioclient5", "exec"]].enumerated() {
                    let url = "https://kde\(index).example/"
                    let result = try await run(command + [url], environment: s.environment)
                    #expect(result.status == 0, "\(command): \(result.stdout)\(result.stderr)")
                    let records = try await s.tree.waitForRecords(index + 1)
                    let reached = records.filter { $0.arguments == [url] }
                    #expect(reached.count == 1, "\(command) should reach the browser once: \(records.map(\.arguments))")
                    // KIO's startup ID for the display, passed on by openurl and the daemon.
                    #expect(reached.first?.environment["DESKTOP_STARTUP_ID"]?.isEmpty == false, "\(command): \(reached.first?.environment ?? [:])")
                    #expect(try await s.dispatcherRuns(), "\(command) should have gone through the daemon")
                }
                // A link nothing opens: KIO exits 0 and keeps openurl's message for the journal;
                // the person learns of it from the notification server.
                let server = try await FakeNotificationServer(on: s.bus)
                let refused = try await run(["kde-open5", "tel:+15550100"], environment: s.environment)
                #expect(refused.status == 0)
                let shown = try await server.waitForNotifications(1)
                #expect(shown.map(\.body) == ["a tel: link: no application is set up for x-scheme-handler/tel"], "\(shown)")
            }
            }
        // No display at all: xdg-open ignores mimeapps.list and tries $BROWSER.
        try await withSession(extra: ["BROWSER": "textbrowser"]) { s in
            try s.tree.write("bin/textbrowser", "#!/bin/sh\nexec recorder textbrowser \"$@\"\n", executable: true)
            let result = try await run(["xdg-open", "https://headless.example/"], environment: s.environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try await s.tree.waitForRecords(1).first?.app == "textbrowser")
            #expect(try await s.dispatcherRuns() == false)
        }
    }

    /// Every Flatpak app's links: `org.freedesktop.portal.OpenURI.OpenURI`,
    /// served by the real xdg-desktop-portal with its GTK backend, which
    /// launches the default handler: the dispatcher.
    @Test(.enabled(if: DesktopIntegrationTests.portalInstalled, "xdg-desktop-portal and xdg-desktop-portal-gtk are not installed"))
    func thePortalReachesTheDispatcher() async throws {
        let version = try await run(["dpkg-query", "-W", "-f", "${Version}", "xdg-desktop-portal"]).stdout
        let parts = version.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        // Portals before 1.19 hand the token to Exec launches only (in the
        // environment), not to DBusActivatable ones (upstream commit
        // 172c08a8, "launch-context: Let GAppLaunchContext handle xdg-activation").
        let passesTokens = parts.count == 2 && (parts[0], parts[1]) >= (1, 19)
        try await withXvfb { x in
            try await withSession(display: x.display, extra: ["XDG_CURRENT_DESKTOP": "GNOME"], portal: true) { s in
                let call = try await run(
                    ["gdbus", "call", "--address", s.bus.address, "--dest", "org.freedesktop.portal.Desktop",
                     "--object-path", "/org/freedesktop/portal/desktop", "--method", "org.freedesktop.portal.OpenURI.OpenURI",
                     "", "https://portal.example/x", "{'activation_token': <'portal-token-1'>}"], environment: s.environment)
                #expect(call.status == 0, "\(call.stderr)")
                let record = try #require(try await s.tree.waitForRecords(1, within: .seconds(20)).first)
                #expect(record.app == "browser" && record.arguments == ["https://portal.example/x"])
                #expect(try await s.dispatcherRuns())
                if passesTokens {
                    #expect(record.environment["XDG_ACTIVATION_TOKEN"] == "portal-token-1")
                } else {
                    #expect(record.environment["XDG_ACTIVATION_TOKEN"] == nil, "xdg-desktop-portal \(version) passes tokens now: update docs/desktop-integration.md")
                }
            }
        }
    }
}
