import DBus
import DispatcherAPI
import Foundation
import Routing
import Testing
import TestSupport

@testable import OpenURLCommand

/// The fast front of `openurl` (`Front/`, Embedded Swift): it speaks the
/// same contract, takes only what the full CLI would take the same way, and
/// hands everything else on. Every `CLITests` case runs against it too.
@Suite(.timeLimit(.minutes(2)))
struct FrontTests {
    /// The constants `Front/Sources/Contract.swift` spells, as written there.
    static func frontConstants() throws -> [String: String] {
        let text = try String(contentsOfFile: Binaries.repository + "/Front/Sources/Contract.swift", encoding: .utf8)
        var constants: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let words = line.trimmingCharacters(in: .whitespaces)
            guard words.hasPrefix("static let "), let equals = words.firstIndex(of: "=") else { continue }
            let name = words.dropFirst("static let ".count).prefix { $0 != ":" && $0 != " " }
            let value = words[words.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            // A string literal without its quotes; a number without its digit separators.
            constants[String(name)] = value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                ? String(value.dropFirst().dropLast()) : value.replacingOccurrences(of: "_", with: "")
        }
        return constants
    }

    /// Every name the front spells is the one DispatcherAPI, Routing and the
    /// DBus module define: none can drift, and none is left unchecked.
    @Test func theFrontsNamesAreTheContracts() throws {
        let milliseconds = DispatcherAPI.longestWalk.components.seconds * 1000
        let expected: [String: String] = [
            "busName": DispatcherAPI.busName.rawValue,
            "objectPath": DispatcherAPI.objectPath.rawValue,
            "dispatcherInterface": DispatcherAPI.dispatcherInterface.rawValue,
            "openURLWithOptions": DispatcherAPI.Member.openURLWithOptions.rawValue,
            "replySignature": DispatcherAPI.Signatures.openURLWithOptions.results.map(\.type.description).joined(),
            "activationTokenKey": DispatcherAPI.OptionKey.activationToken,
            "askKey": DispatcherAPI.OptionKey.ask,
            "notifyFailureKey": DispatcherAPI.OptionKey.notifyFailure,
            "outcomeKey": DispatcherAPI.ResultKey.outcome,
            "urlKey": DispatcherAPI.ResultKey.url,
            "handlerKey": DispatcherAPI.ResultKey.handler,
            "ruleKey": DispatcherAPI.OptionKey.rule,
            "applicationKey": DispatcherAPI.ResultKey.application,
            "messageKey": DispatcherAPI.ResultKey.message,
            "longestWalkMilliseconds": String(milliseconds),
            "connectMilliseconds": String(OpenCommand.connectTimeout.components.seconds * 1000),
            "bus": BusName.bus.rawValue,
            "busPath": "/org/freedesktop/DBus",
            "busInterface": "org.freedesktop.DBus",
            "serviceUnknown": ErrorName.serviceUnknown.rawValue,
            "nameHasNoOwner": ErrorName.nameHasNoOwner.rawValue,
            "noReply": ErrorName.noReply.rawValue,
            "disconnected": ErrorName.disconnected.rawValue,
            "fileNotFound": "org.freedesktop.DBus.Error.FileNotFound",
            "failed": ErrorName.failed.rawValue,
            "spawnPrefix": "org.freedesktop.DBus.Error.Spawn.",
            "noMemory": ErrorName.noMemory.rawValue,
        ]
        let front = try Self.frontConstants()
        #expect(front == expected)
        // What the front takes for "nobody is there" (it hands the rest on) is what the full CLI takes so.
        for name in [front["serviceUnknown"], front["nameHasNoOwner"], front["disconnected"], front["fileNotFound"],
                     front["spawnPrefix"].map { $0 + "ExecFailed" }, front["spawnPrefix"].map { $0 + "ChildExited" }] {
            #expect(DispatcherClient.isUnreachable(DBusError(ErrorName(trusted: name!), "")), "\(name!)")
        }
        // The result keys are every key OpenURLOutcome writes.
        let written = OpenURLOutcome(outcome: .handled, finalURL: "x:", handler: 1, rule: "r", application: "a", message: "m").dictionary
        #expect(Set(written.keys) == Set(["outcomeKey", "urlKey", "handlerKey", "ruleKey", "applicationKey", "messageKey"].map { expected[$0]! }))
    }

    /// The installed layout: the front links libc and libdbus only.
    @Test func theFrontLinksLibcAndLibdbusOnly() async throws {
        let dynamic = try await run(["readelf", "-d", Binaries.openurl])
        let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            .map { $0.split(separator: "[").last.map { String($0.dropLast()) } ?? "" }
        #expect(Set(needed) == ["libdbus-1.so.3", "libc.so.6"], "\(needed)")
    }

    /// Command lines the front takes and ones it hands on: the front and the
    /// full CLI, run in turn on the same session, print the same, exit the
    /// same and open the same.
    @Test func whatTheFrontTakesTheFullCLITakesTheSameWay() async throws {
        try await withPrivateBus { bus in
            let tree = try XDGTree()
            try tree.app("browser.desktop", schemes: ["http", "https"])
            try tree.write("config/openurld/rules.d/block.rules", "[Rule block]\nHosts=blocked.example\nResult=discarded\n")
            let daemon = try await Binaries.startDaemon(on: bus, tree: tree)
            defer { Binaries.stop(daemon) }
            var environment = tree.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            try tree.write("home/page.html", "<p>hi</p>")
            let page = tree.root + "/home/page.html"
            let lines: [[String]] = [
                ["https://example.com/one"], ["-q", "https://example.com/two", "http://example.org/"], ["https://blocked.example/"],
                ["https://example.com/three", "--quiet"], ["gopher://x"], ["javascript:alert(1)"], ["tel:+15550100"],
                ["not a url"], ["https://ok.example/", "bad url"], ["HTTPS://Example.COM/Case"], ["https://[::1]:99999/"],
                ["--version"], ["-q", "--version"], ["--bogus"], [], ["--", "https://example.com/dashes"], ["explian", "https://x.example/"],
                ["status"], [page], ["./nonexistent.html"], ["file://" + page], ["https://example.com/\u{202E}"],
                ["-v", "https://example.com/verbose"], ["--ask", "https://example.com/ask"], ["-qv", "https://example.com/qv"],
            ] + Self.usageErrors + [["--version", "--bogus"], ["--help", "--bogus"], ["-", "https://example.com/"], ["--ask", "--", "-q"]]
            // Each program runs every line, then a sentinel that must open.
            // Every launch was made before its command returned, so once the
            // sentinel is recorded and no recorder of the tree still runs, the
            // launches before it are recorded too (their recorders finish in
            // any order: one loaded run saw the sentinel's before --ask's).
            func runAll(_ program: String) async throws -> (results: [CommandResult], opened: [String]) {
                for file in (try? FileManager.default.contentsOfDirectory(atPath: tree.records)) ?? [] {
                    try FileManager.default.removeItem(atPath: tree.records + "/" + file)
                }
                var results: [CommandResult] = []
                for line in lines { results.append(try await run([program] + line, environment: environment)) }
                let sentinel = "https://sentinel.example/" + (program == Binaries.openurl ? "front" : "full")
                #expect(try await run([program, sentinel], environment: environment).status == 0)
                let opened = try await tree.settledRecords { $0.contains { $0.arguments.contains(sentinel) } }.flatMap(\.arguments)
                return (results, opened.filter { $0 != sentinel }.sorted())
            }
            let front = try await runAll(Binaries.openurl)
            let full = try await runAll(Binaries.fullCLI)
            for (index, line) in lines.enumerated() {
                let (a, b) = (front.results[index], full.results[index])
                #expect(a.status == b.status, "\(line): \(a.status) vs \(b.status)")
                #expect(a.stdout == b.stdout, "\(line)")
                #expect(a.stderr == b.stderr, "\(line): \(a.stderr) vs \(b.stderr)")
            }
            #expect(front.opened == full.opened)
            #expect(front.opened.count >= 6, "\(front.opened)")
            #expect(!front.opened.contains("https://blocked.example/"), "the rule discards it")
        }
    }

    /// Command lines the full CLI refuses before it knows the command.
    static let usageErrors: [[String]] = [
        ["--bogus"], [], ["-x", "https://example.com/"], ["--quiet=3", "https://example.com/"], ["https://example.com/", "--bogus"],
        ["-q"], ["--\u{1B}[31mred\u{202E}", "https://example.com/"], ["-q", "--version=2"],
    ]

    /// The front says what is wrong with a command line itself, with the
    /// full CLI's parser and words: a front copied away from its full CLI
    /// prints what the full CLI prints, and exits 2.
    @Test(arguments: usageErrors)
    func aUsageErrorIsTheFrontsOwn(_ line: [String]) async throws {
        let tree = try XDGTree()
        try FileManager.default.copyItem(atPath: Binaries.openurl, toPath: tree.root + "/home/openurl")
        let alone = try await run([tree.root + "/home/openurl"] + line, environment: tree.environment)
        let full = try await run([Binaries.fullCLI] + line, environment: tree.environment)
        #expect(alone.status == 2 && full.status == 2, "\(line): \(alone.stderr)")
        #expect(alone.stderr == full.stderr && alone.stdout.isEmpty, "\(line): \(alone.stderr) vs \(full.stderr)")
        #expect(alone.stderr.hasSuffix("\nTry 'openurl --help' for more information.\n"), "\(alone.stderr)")
    }

    /// A reply openurld would never send (a peer owning the name, or a
    /// broken daemon): not `ba{sv}`, so it is an error, exit 3, never
    /// "accepted", and nothing is opened directly. The full CLI says the same.
    @Test(arguments: ["s", "b", "bs"])
    func aMalformedReplyIsNeverAccepted(signature: String) async throws {
        try await withPrivateBus { bus in
            let tree = try XDGTree()
            try tree.app("browser.desktop", schemes: ["https"])
            let (results, values): ([Argument], [Value]) = switch signature {
            case "s": ([Argument("accepted", .string)], [.string("handled")])
            case "b": ([Argument("accepted", .boolean)], [.boolean(true)])
            default: ([Argument("accepted", .boolean), Argument("result", .string)], [.boolean(true), .string("handled")])
            }
            let fake = try await FakeDispatcher(on: bus, results: results) { _ in values }
            defer { fake.connection.close() }
            var environment = tree.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            let front = try await run([Binaries.openurl, "-q", "https://bank.example/"], environment: environment)
            let full = try await run([Binaries.fullCLI, "-q", "https://bank.example/"], environment: environment)
            #expect(front.status == 3, "\(front.stderr)")
            #expect(front.stderr == "openurl: https://bank.example/: openurld's answer cannot be read "
                + "(expected arguments of type 'ba{sv}', got '\(signature)')\n", "\(front.stderr)")
            #expect(full.status == front.status && full.stderr == front.stderr, "\(full.stderr)")
            #expect(tree.recorded().isEmpty, "nothing is opened directly")
        }
    }

    /// The front finds the full CLI from the kernel's path of itself: an
    /// `openurl` on `PATH` and a forged `argv[0]` are never run, and a front
    /// copied away from its full CLI says so and exits 3.
    @Test func theHandOffIgnoresPathAndArgv0() async throws {
        let tree = try XDGTree()
        try tree.write("bin/openurl", "#!/bin/sh\necho impostor\n", executable: true)
        var environment = tree.environment
        environment["PATH"] = tree.root + "/bin:/usr/bin:/bin"
        let script = "exec -a \(tree.root)/bin/openurl \(Binaries.openurl) help"
        let help = try await run(["bash", "-c", script], environment: environment)
        #expect(help.status == 0 && help.stdout.contains("openurl") && !help.stdout.contains("impostor"), "\(help.stdout)")
        try FileManager.default.copyItem(atPath: Binaries.openurl, toPath: tree.root + "/home/openurl")
        let alone = try await run([tree.root + "/home/openurl", "help"], environment: environment)
        #expect(alone.status == 3, "\(alone.stderr)")
        #expect(alone.stderr.hasPrefix("openurl: cannot run the full openurl (\(tree.root)/home/../libexec/openurld/openurl): "), "\(alone.stderr)")
    }

    /// What the front cannot show itself (openurld took the URL and left
    /// before answering) it has the full CLI show: the notification arrives
    /// with the full CLI's wording, and the URL is not opened again.
    @Test func aFailureTheFrontCannotShowItselfIsShownByTheFullCLI() async throws {
        try await withPrivateBus { bus in
            let tree = try XDGTree()
            try tree.app("browser.desktop", schemes: ["https"])
            let server = try await FakeNotificationServer(on: bus)
            let (fake, called) = try await FakeDispatcher.neverAnswering(on: bus)
            var environment = tree.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            async let left = run([Binaries.openurl, "https://left.example/secret"], environment: environment)
            for await _ in called { break }
            fake.connection.close()
            let result = try await left
            #expect(result.status == 3, "\(result.stderr)")
            let shown = try #require(try await server.waitForNotifications(1).first)
            #expect(shown.summary == "Link not opened" && shown.body.hasPrefix("https://left.example: openurld stopped before answering ("),
                    "\(shown.body)")
            #expect(tree.recorded().isEmpty, "not opened again")
        }
    }
}
