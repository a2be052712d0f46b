import DBus
import DispatcherAPI
import Foundation
import Routing
import Spawn
import Synchronization
import Testing
import TestSupport

/// Rules in the built `openurld`: loaded from a temporary XDG tree, reloaded
/// on change, and walked with run-time handlers on a private bus.
@Suite(.timeLimit(.minutes(2)))
struct RulesEndToEndTests {
    static let rulesDirectory = "config/openurld/rules.d"

    /// A tree whose every scheme falls back to the `fallback` recorder.
    static func tree() throws -> XDGTree {
        let tree = try XDGTree()
        try tree.app("fallback.desktop", schemes: ["http", "https", "mailto", "tel", "sip", "zoommtg", "msteams"])
        return tree
    }

    /// Waits until the daemon lists exactly `names` as its rules.
    static func waitForRules(_ names: [String], _ client: DispatcherClient) async throws -> [String] {
        var problems: [String] = []
        for _ in 0..<500 {
            let (rules, found) = try await client.rules()
            problems = found
            if rules.map(\.name) == names { return problems }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw FixtureError("the daemon did not load \(names); problems: \(problems)")
    }

    @Test func everyCookbookRecipeWorksInTheDaemon() async throws {
        let tree = try Self.tree()
        let cookbook = try Cookbook.load()
        // The apps and programs the recipes name, as recorders.
        for recipe in cookbook.recipes {
            for example in recipe.examples {
                switch example.expected {
                case .opens(_, let id): try tree.app(id, schemes: [])
                case .runs(_, let program): try tree.write("bin/" + program, "#!/bin/sh\nexec recorder \(program) \"$@\"\n", executable: true)
                default: break
                }
            }
        }
        // The CLI under another name, so that the daemon sees a caller called "slack".
        try FileManager.default.createSymbolicLink(atPath: tree.root + "/bin/slack", withDestinationPath: Binaries.openurl)
        try await withDaemon(tree: tree) { bus, client, daemon in

            var seen = 0
            for (index, recipe) in cookbook.recipes.enumerated() {
                // One recipe at a time: the file is replaced, and the daemon notices.
                try? FileManager.default.removeItem(atPath: tree.root + "/" + Self.rulesDirectory)
                try tree.write(Self.rulesDirectory + "/\(index).rules", recipe.text)
                let names = recipe.text.split(separator: "\n").filter { $0.hasPrefix("[Rule ") }.map { String($0.dropFirst(6).dropLast()) }
                let problems = try await Self.waitForRules(names, client)
                #expect(problems.isEmpty, "\(recipe.title): \(problems)")
                for example in recipe.examples {
                    var result: OpenURLOutcome?
                    // Only "slack" can be played (the CLI under that name); any other
                    // caller is this test process, whose app ID no recipe names.
                    if example.callerAppID == "slack" {
                        var environment = tree.environment
                        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
                        let run = try await TestSupport.run([tree.root + "/bin/slack", example.url], environment: environment)
                        #expect(run.status == 0, "\(run.stderr)")
                    } else {
                        result = try await client.open(example.url)
                    }
                    switch example.expected {
                    case .discarded:
                        #expect(result?.outcome == .discarded, "\(recipe.title): \(example)")
                        #expect(result?.rule == names.first)
                        continue
                    case .passesOn(let url):
                        if let result { #expect(result.outcome == .opened, "\(recipe.title): \(example)") }
                        let record = try await tree.waitForRecords(seen + 1)[seen]
                        #expect(record.app == "fallback" && record.arguments == [url], "\(recipe.title): \(example): \(record.app) \(record.arguments)")
                    case .opens(let url, let id):
                        if let result { #expect(result.outcome == .handled && result.application == id, "\(example): \(result)") }
                        let record = try await tree.waitForRecords(seen + 1)[seen]
                        #expect(record.app == String(id.dropLast(8)) && record.arguments == [url], "\(recipe.title): \(example): \(record.app) \(record.arguments)")
                    case .runs(let url, let program):
                        let record = try await tree.waitForRecords(seen + 1)[seen]
                        #expect(record.app == program && record.arguments.last == url, "\(recipe.title): \(example): \(record.app) \(record.arguments)")
                    }
                    seen += 1
                }
            }
            #expect(seen >= 25)
        }
    }

    /// A rule and run-time handlers at the same and at other priorities:
    /// higher first; at equal priority the handler first.
    @Test func rulesAndRunTimeHandlersInterleaveByPriority() async throws {
        let tree = try Self.tree()
        try tree.write(Self.rulesDirectory + "/10-a.rules", """
            [Rule tag-five]
            Priority=5
            Match=^(.*)$
            Rewrite=$1-r5
            [Rule tag-zero]
            Match=^(.*)$
            Rewrite=$1-r0
            """)
        try await withDaemon(tree: tree) { bus, client, daemon in
            _ = try await Self.waitForRules(["tag-five", "tag-zero"], client)
            let host = HandlerHost(client: client)
            for priority: Int32 in [10, 5, 0] {
                _ = try await host.add(.init(schemes: ["https"], priority: priority, name: "h\(priority)")) { url, _ in
                    .rewrite(url + "-h\(priority)")
                }
            }
            let result = try await client.open("https://example.com/x")
            #expect(result.outcome == .opened)
            #expect(result.finalURL == "https://example.com/x-h10-h5-r5-h0-r0")
            #expect(try await tree.waitForRecords(1)[0].arguments == ["https://example.com/x-h10-h5-r5-h0-r0"])

            // Explain shows the same order, with what each rule did.
            let (steps, application) = try await client.explain("https://example.com/x")
            #expect(steps.map { $0.rule?.name ?? $0.handler!.name } == ["h10", "h5", "tag-five", "h0", "tag-zero"])
            #expect(steps[2].url == "https://example.com/x" && steps[2].resultURL == "https://example.com/x-r5")
            #expect(steps[4].url == "https://example.com/x-r5" && steps[4].resultURL == "https://example.com/x-r5-r0")
            #expect(steps[2].rule?.file == tree.root + "/" + Self.rulesDirectory + "/10-a.rules" && steps[2].rule?.line == 1)
            #expect(application == "fallback.desktop")
        }
    }

    /// Editing a file while calls are in flight: every call is answered,
    /// each by the old rules or the new ones, never by neither.
    @Test func reloadingWhileCallsAreInFlightLosesNothing() async throws {
        let tree = try Self.tree()
        func rule(_ version: String) -> String { "[Rule version]\nRewrite=$0-\(version)\n" }
        try tree.write(Self.rulesDirectory + "/10-version.rules", rule("old"))
        try await withDaemon(tree: tree) { bus, client, daemon in
            _ = try await Self.waitForRules(["version"], client)
            // A slow handler keeps walks in flight across the reload.
            let host = HandlerHost(client: client)
            _ = try await host.add(.init(schemes: ["https"], priority: 1)) { _, _ in
                try? await Task.sleep(for: .milliseconds(300))
                return .systemAction
            }
            let results = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 {
                    group.addTask { try await client.open("https://example.com/\(index)").finalURL }
                }
                try await Task.sleep(for: .milliseconds(100))
                try tree.write(Self.rulesDirectory + "/10-version.rules", rule("new"))
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 20)
            #expect(results.allSatisfy { $0.hasSuffix("-old") || $0.hasSuffix("-new") }, "\(results)")
            _ = try await Self.waitForRules(["version"], client)
            for _ in 0..<500 {
                if try await client.explain("https://example.com/after").steps.last?.resultURL == "https://example.com/after-new" { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            // Walks ask the slow handler too, so one call is enough once the reload is done.
            #expect(try await client.open("https://example.com/after").finalURL == "https://example.com/after-new")
            #expect(try await client.handlers().count == 1, "the run-time handler survived the reload")
        }
    }

    /// With no config directory at all when the daemon starts, creating
    /// `~/.config/openurld/rules.d/` and a rule file later is still noticed.
    @Test func rulesDirectoriesCreatedLaterAreNoticed() async throws {
        let tree = try Self.tree()
        try FileManager.default.removeItem(atPath: tree.root + "/config")
        try await withDaemon(tree: tree) { _, client, _ in
            _ = try await Self.waitForRules([], client)
            try tree.write(Self.rulesDirectory + "/10-late.rules", "[Rule late]\nResult=discarded\n")
            _ = try await Self.waitForRules(["late"], client)
            #expect(try await client.open("https://example.com/").outcome == .discarded)
        }
    }

    /// A broken file is reported with file and line; its valid rules and
    /// the other files keep working. SIGHUP reloads too.
    @Test func aBrokenFileLeavesTheRestWorkingAndSIGHUPReloads() async throws {
        let tree = try Self.tree()
        let log = try makeTemporaryDirectory(prefix: "openurld-rules-log") + "/stderr"
        let logFD = open(log, O_WRONLY | O_CREAT, 0o600)
        defer { close(logFD) }
        try tree.write(Self.rulesDirectory + "/10-broken.rules", """
            [Rule broken]
            Match=(unclosed
            Result=discarded
            [Rule fine]
            Hosts=blocked.example
            Result=discarded
            """)
        try tree.write("etc-xdg/openurld/rules.d/20-system.rules", "[Rule system]\nHosts=system.example\nResult=discarded\n")
        try await withDaemon(tree: tree, stderr: logFD) { bus, client, daemon in
            let problems = try await Self.waitForRules(["fine", "system"], client)
            let file = tree.root + "/" + Self.rulesDirectory + "/10-broken.rules"
            #expect(problems == ["\(file):2: Match=: at offset 0: unmatched '('"])
            #expect(try await client.open("https://blocked.example/").outcome == .discarded)
            #expect(try await client.open("https://system.example/").outcome == .discarded)
            #expect(try await client.open("https://other.example/").outcome == .opened)
            #expect(try String(contentsOfFile: log, encoding: .utf8).contains("<4>\(file):2: Match=: at offset 0: unmatched '('"))

            // SIGHUP: a change the watcher cannot see (the target of a
            // symlinked rule file, edited in place elsewhere) is picked up.
            let elsewhere = try makeTemporaryDirectory(prefix: "openurld-dotfiles") + "/late.rules"
            try "[Rule early]\nResult=handled\n".write(toFile: elsewhere, atomically: false, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: tree.root + "/" + Self.rulesDirectory + "/30-late.rules", withDestinationPath: elsewhere)
            _ = try await Self.waitForRules(["fine", "system", "early"], client)
            try "[Rule late]\nResult=handled\n".write(toFile: elsewhere, atomically: false, encoding: .utf8)
            kill(daemon, SIGHUP)
            _ = try await Self.waitForRules(["fine", "system", "late"], client)
            #expect(try String(contentsOfFile: log, encoding: .utf8).contains("received SIGHUP; reloading the rules"))
        }
    }
}
