import CommandLineOptions
import Testing

@testable import OpenURLDaemon

@Suite struct DaemonOptionsTests {
    @Test func parsesEveryOption() throws {
        var expected = DaemonOptions()
        expected.address = "unix:path=/tmp/b"
        expected.handlerTimeout = .milliseconds(500)
        expected.walkDeadline = .seconds(3)
        expected.replace = true
        expected.verbose = true
        expected.maxHandlersPerClient = 8
        expected.maxHandlers = 100
        let parsed = try DaemonOptions.parse([
            "--address=unix:path=/tmp/b", "--handler-timeout", "0.5", "--walk-deadline=3", "--replace", "-v",
            "--max-handlers-per-client", "8", "--max-handlers=100",
        ])
        #expect(parsed == .run(expected))
        #expect(try DaemonOptions.parse(["--help", "--bogus"]) == .help)
        #expect(try DaemonOptions.parse(["--version"]) == .version)
    }

    static let errors: [([String], String)] = [
        (["--bogus"], "unknown argument '--bogus'"),
        (["--address"], "--address needs a value"),
        (["--walk-deadline", "0"], "--walk-deadline takes a number of seconds between 0 and 86400, not '0'"),
        (["--walk-deadline", "nan"], "--walk-deadline takes a number of seconds between 0 and 86400, not 'nan'"),
        (["--max-handlers", "-1"], "--max-handlers takes a whole number between 1 and 1000000, not '-1'"),
        (["extra"], "unknown argument 'extra'"),
    ]

    @Test(arguments: errors)
    func reportsMistakes(_ arguments: [String], _ message: String) {
        #expect(throws: UsageError(message)) { try DaemonOptions.parse(arguments) }
    }

    @Test(arguments: [
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-4242.scope\n", "org.gnome.Terminal"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.mozilla.firefox-1234.scope\n", "org.mozilla.firefox"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.konsole@a1b2.service\n", "org.kde.konsole"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-my\\x2dapp-99.scope\n", "my-app"),
        ("0::/user.slice/user-1000.slice/session-2.scope\n", nil),
        ("1:name=systemd:/x\n", nil),
    ] as [(String, String?)])
    func appIDsFromCgroups(_ cgroup: String, _ expected: String?) {
        #expect(CallerIdentities.appID(fromCgroup: cgroup) == expected)
    }
}
