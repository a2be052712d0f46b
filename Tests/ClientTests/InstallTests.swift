import DBus
import DispatcherAPI
import Foundation
import Spawn
import Synchronization
import Testing
import TestSupport

/// `make install`, the installed unit and service files, and D-Bus activation.
@Suite(.timeLimit(.minutes(2)))
struct InstallTests {
    /// Installs the debug build with `make install-files`.
    static func install(_ variables: [String]) async throws -> CommandResult {
        let result = try await run(["make", "-s", "-C", Binaries.repository, "install-files", "BUILD_DIR=" + Binaries.directory] + variables)
        #expect(result.status == 0, "make: \(result.stderr)")
        return result
    }

    /// The chooser's own install (its package's files): the binary, its
    /// activation file and its desktop file, valid, with paths substituted.
    @Test func theChooserInstallsApart() async throws {
        let destdir = try makeTemporaryDirectory(prefix: "openurld-destdir")
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let result = try await run(["make", "-s", "-C", Binaries.repository, "install-chooser", "BUILD_DIR=" + Binaries.directory,
                                    "DESTDIR=" + destdir, "PREFIX=/usr"])
        #expect(result.status == 0, "make: \(result.stderr)")
        let found = FileManager.default.enumerator(atPath: destdir)!.compactMap { $0 as? String }
            .filter { !FileManager.default.fileExists(atPath: destdir + "/" + $0 + "/.") }.sorted()
        #expect(found == ["usr/bin/openurld-chooser", "usr/share/applications/org.openurld.Chooser1.desktop",
                          "usr/share/dbus-1/services/org.openurld.Chooser1.service", "usr/share/man/man1/openurld-chooser.1",
                          "usr/share/metainfo/org.openurld.Chooser1.metainfo.xml"])
        let service = try String(contentsOfFile: destdir + "/usr/share/dbus-1/services/org.openurld.Chooser1.service", encoding: .utf8)
        #expect(service.contains("Name=org.openurld.Chooser1\nExec=/usr/bin/openurld-chooser --service\n"))
        let desktop = destdir + "/usr/share/applications/org.openurld.Chooser1.desktop"
        #expect(try String(contentsOfFile: desktop, encoding: .utf8).contains("Exec=/usr/bin/openurld-chooser\n"))
        let validate = try await run(["desktop-file-validate", desktop])
        #expect(validate.status == 0 && validate.stdout.isEmpty, "\(validate.stdout)")
    }

    @Test func installHonoursDestdirAndSubstitutesPaths() async throws {
        let destdir = try makeTemporaryDirectory(prefix: "openurld-destdir")
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        _ = try await Self.install(["DESTDIR=" + destdir, "PREFIX=/usr"])
        let expected = [
            "usr/bin/openurl", "usr/bin/openurld", "usr/bin/openurld-chooser-dmenu", "usr/lib/systemd/user/openurld.service",
            "usr/libexec/openurld/openurl", "usr/libexec/openurld/openurld-multicall",
            "usr/share/applications/org.openurld.Dispatcher1.desktop",
            "usr/share/dbus-1/interfaces/org.openurld.Chooser1.xml",
            "usr/share/dbus-1/interfaces/org.openurld.Dispatcher1.xml",
            "usr/share/dbus-1/services/org.openurld.Dispatcher1.service",
            "usr/share/doc/openurld/CHANGELOG.md", "usr/share/doc/openurld/README.md", "usr/share/doc/openurld/chooser.md",
            "usr/share/doc/openurld/dbus-api.md", "usr/share/doc/openurld/desktop-integration.md", "usr/share/doc/openurld/detect.md",
            "usr/share/doc/openurld/examples/90-ask.rules",
            "usr/share/doc/openurld/reliability.md", "usr/share/doc/openurld/rules.md",
            "usr/share/doc/openurld/screenshots/chooser.png", "usr/share/doc/openurld/screenshots/preferences.png",
            "usr/share/doc/openurld/xdg-resolution.md",
            "usr/share/man/man1/openurl.1", "usr/share/man/man1/openurld-chooser-dmenu.1", "usr/share/man/man1/openurld.1",
            "usr/share/metainfo/org.openurld.Dispatcher1.metainfo.xml",
        ]
        let found = FileManager.default.enumerator(atPath: destdir)!.compactMap { $0 as? String }
            .filter { !FileManager.default.fileExists(atPath: destdir + "/" + $0 + "/.") }.sorted()
        #expect(found == expected)
        // One Swift binary: the daemon, the dmenu chooser and the full CLI are links to it; /usr/bin/openurl is the front.
        let fileManager = FileManager.default
        #expect(try fileManager.destinationOfSymbolicLink(atPath: destdir + "/usr/bin/openurld") == "../libexec/openurld/openurld-multicall")
        #expect(try fileManager.destinationOfSymbolicLink(atPath: destdir + "/usr/bin/openurld-chooser-dmenu") == "../libexec/openurld/openurld-multicall")
        #expect(try fileManager.destinationOfSymbolicLink(atPath: destdir + "/usr/libexec/openurld/openurl") == "openurld-multicall")
        #expect(try await run([destdir + "/usr/bin/openurld", "--version"]).stdout == "openurld \(DispatcherAPI.version)\n")
        #expect(try await run([destdir + "/usr/bin/openurld-chooser-dmenu", "--help"]).stdout.contains("openurld-chooser-dmenu"))
        // The front, installed, hands on to the full CLI it was installed with.
        let help = try await run([destdir + "/usr/bin/openurl", "help"])
        #expect(help.status == 0 && help.stdout.contains("set-default"), "\(help.stderr)")
        let unit = try String(contentsOfFile: destdir + "/usr/lib/systemd/user/openurld.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/openurld --idle-exit 300\n"))
        let service = try String(contentsOfFile: destdir + "/usr/share/dbus-1/services/org.openurld.Dispatcher1.service", encoding: .utf8)
        #expect(service.contains("Exec=/usr/bin/openurld --idle-exit 300\nSystemdService=openurld.service\n"))
        let desktop = destdir + "/usr/share/applications/org.openurld.Dispatcher1.desktop"
        #expect(try String(contentsOfFile: desktop, encoding: .utf8).contains("Exec=/usr/bin/openurl %U\n"))
        for file in [unit, service, try String(contentsOfFile: desktop, encoding: .utf8)] {
            #expect(!file.contains("@"), "an unsubstituted placeholder")
        }
        let validate = try await run(["desktop-file-validate", desktop])
        #expect(validate.status == 0, "\(validate.stdout)")
        let man = try await run(["man", "-l", destdir + "/usr/share/man/man1/openurl.1"], environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin"])
        #expect(man.stdout.contains("openurl - open URLs through the openurld dispatcher"))

        let uninstall = try await run(["make", "-s", "-C", Binaries.repository, "uninstall", "DESTDIR=" + destdir, "PREFIX=/usr"])
        #expect(uninstall.status == 0)
        let left = FileManager.default.enumerator(atPath: destdir)!.compactMap { $0 as? String }
            .filter { !FileManager.default.fileExists(atPath: destdir + "/" + $0 + "/.") }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// `make install` copies what `make` built: as root there may be no
    /// Swift toolchain, so it never compiles (nor installs packages), and
    /// says what to do when the build is missing (issue 17).
    @Test func installWithoutABuildFailsClearlyAndCompilesNothing() async throws {
        let destdir = try makeTemporaryDirectory(prefix: "openurld-destdir")
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        // No swift, no apt-get on PATH: if make tried either, it would fail differently.
        let result = try await run(
            ["make", "-s", "-C", Binaries.repository, "install", "DESTDIR=" + destdir, "BUILD_DIR=" + destdir + "/nothing-built"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": destdir])
        #expect(result.status != 0)
        #expect(result.stderr.contains("is not built; run 'make' first"), "\(result.stderr)")
        #expect(FileManager.default.enumerator(atPath: destdir)?.allObjects.isEmpty ?? true, "something was installed")
    }

    /// `make install-user` puts data and units where the user's XDG variables say.
    @Test func installUserHonoursTheXDGDirectories() async throws {
        let home = try makeTemporaryDirectory(prefix: "openurld-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/conf"]
        let install = try await run(["make", "-s", "-C", Binaries.repository, "install-user", "BUILD_DIR=" + Binaries.directory],
                                    environment: environment)
        #expect(install.status == 0, "\(install.stderr)")
        for path in ["/.local/bin/openurl", "/data/applications/org.openurld.Dispatcher1.desktop",
                     "/data/dbus-1/services/org.openurld.Dispatcher1.service", "/conf/systemd/user/openurld.service",
                     "/data/man/man1/openurld.1", "/data/doc/openurld/README.md"] {
            #expect(FileManager.default.fileExists(atPath: home + path), "\(path) is missing")
        }
        #expect(!FileManager.default.fileExists(atPath: home + "/.local/share"), "~/.local/share was used although XDG_DATA_HOME is set")
        let uninstall = try await run(["make", "-s", "-C", Binaries.repository, "uninstall-user"], environment: environment)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        let left = FileManager.default.enumerator(atPath: home)!.compactMap { $0 as? String }
            .filter { !FileManager.default.fileExists(atPath: home + "/" + $0 + "/.") }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// The same commit gives the same tarball, byte for byte.
    @Test func makeDistIsReproducible() async throws {
        let directories = [try makeTemporaryDirectory(prefix: "openurld-dist"), try makeTemporaryDirectory(prefix: "openurld-dist")]
        defer { directories.forEach { try? FileManager.default.removeItem(atPath: $0) } }
        var tarballs: [Data] = []
        for directory in directories {
            let result = try await run(["make", "-s", "-C", Binaries.repository, "dist", "DIST_DIR=" + directory])
            #expect(result.status == 0, "\(result.stderr)")
            tarballs.append(try Data(contentsOf: URL(fileURLWithPath: directory + "/openurld-\(DispatcherAPI.version).tar.gz")))
        }
        #expect(tarballs[0] == tarballs[1], "two runs of make dist differ")
        let listing = try await run(["tar", "-tzf", directories[0] + "/openurld-\(DispatcherAPI.version).tar.gz"]).stdout
        for file in ["LICENSE", "NOTICE", "Package.swift", "CHANGELOG.md", "packaging/fedora/openurld.spec"] {
            #expect(listing.contains("openurld-\(DispatcherAPI.version)/\(file)\n"), "\(file) is not in the tarball")
        }
    }

    @Test func theMetainfoAndDesktopFileValidate() async throws {
        let appstream = try await run(["appstreamcli", "validate", "--no-net", Binaries.repository + "/packaging/org.openurld.Dispatcher1.metainfo.xml",
                                       Binaries.repository + "/packaging/org.openurld.Chooser1.metainfo.xml"])
        #expect(appstream.status == 0, "\(appstream.stdout)\(appstream.stderr)")
    }

    @Test func theInstalledUnitPassesSystemdAnalyzeVerify() async throws {
        let prefix = try makeTemporaryDirectory(prefix: "openurld-prefix")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        _ = try await Self.install(["PREFIX=" + prefix])
        let runtime = try makeTemporaryDirectory(prefix: "openurld-runtime")
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        // MANPATH: verify also checks that the Documentation= man pages exist.
        let verify = try await run(
            ["systemd-analyze", "--user", "verify", prefix + "/lib/systemd/user/openurld.service"],
            environment: ["XDG_RUNTIME_DIR": runtime, "MANPATH": prefix + "/share/man", "PATH": "/usr/bin:/bin"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    /// The daemon is not running; the first call starts it through the
    /// installed D-Bus service file; idle, it exits; the next call starts it again.
    @Test func dbusActivationStartsTheDaemonAndIdleExitStopsIt() async throws {
        let prefix = try makeTemporaryDirectory(prefix: "openurld-prefix")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        _ = try await Self.install(["PREFIX=" + prefix, "IDLE_EXIT=1"])
        let tree = try XDGTree()
        try tree.app("browser.desktop", schemes: ["https"])
        try await withPrivateBus(serviceDirectories: [prefix + "/share/dbus-1/services"], environment: tree.environment) { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            #expect(try await watcher.owner(of: DispatcherAPI.busName) == nil)
            // Owners as the bus announces them: the daemon may start and exit
            // before a question about its owner would be answered, on a loaded machine.
            let owners = Mutex<[String?]>([])
            _ = try await watcher.watchNameOwners { change in
                if change.name == DispatcherAPI.busName { owners.withLock { $0.append(change.newOwner?.rawValue) } }
            }
            func waitForOwners(_ count: Int) async throws -> [String?] {
                for _ in 0..<200 {
                    let seen = owners.withLock { $0 }
                    if seen.count >= count { return seen }
                    try await Task.sleep(for: .milliseconds(25))
                }
                return owners.withLock { $0 }
            }
            var environment = tree.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            let first = try await run([Binaries.openurl, "-v", "https://activated.example/"], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.contains("(via openurld)"), "\(first.stderr)")
            #expect(try await tree.waitForRecords(1).first?.arguments == ["https://activated.example/"])

            // Idle for a second with no handlers: it exits on its own (the name's owner goes).
            let afterIdle = try await waitForOwners(2)
            #expect(afterIdle.count == 2 && afterIdle[0] != nil && afterIdle[1] == nil, "still running after 5 s idle: \(afterIdle)")

            let second = try await run([Binaries.openurl, "-v", "https://reactivated.example/"], environment: environment)
            #expect(second.status == 0 && second.stderr.contains("(via openurld)"), "\(second.stderr)")
            let all = try await waitForOwners(3)
            #expect(all.count >= 3 && all[2] != nil && all[2] != all[0], "\(all)")
        }
    }

    @Test func aRegisteredHandlerKeepsAnIdleDaemonAlive() async throws {
        let prefix = try makeTemporaryDirectory(prefix: "openurld-prefix")
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        _ = try await Self.install(["PREFIX=" + prefix, "IDLE_EXIT=0.3"])
        try await withPrivateBus(serviceDirectories: [prefix + "/share/dbus-1/services"], environment: try XDGTree().environment) { bus in
            let app = try await bus.connect()
            defer { app.close() }
            let host = HandlerHost(client: DispatcherClient(connection: app))
            _ = try await host.add(.init(schemes: ["https"])) { _, _ in .handled }  // activates the daemon
            let owner = try await app.owner(of: DispatcherAPI.busName)
            try await Task.sleep(for: .seconds(1))
            #expect(try await app.owner(of: DispatcherAPI.busName) == owner, "exited although a handler was registered")
        }
    }
}
