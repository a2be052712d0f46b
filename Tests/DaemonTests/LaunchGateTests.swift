import DBus
import Desktop
import DispatcherAPI
import Foundation
import OpenURLDaemon
import Router
import Routing
import Rules
import Synchronization
import Testing
import TestSupport
import XDG

/// One gate before every launch (`LaunchGate`): refused schemes and runnable
/// file types are refused on every path to an application, and runnable
/// types are found through the MIME database's aliases and parent types.
@Suite(.timeLimit(.minutes(1)))
struct LaunchGateTests {
    static let reaper = ChildReaper()

    /// The machine's own MIME database, read as the fallback reads it.
    static func machineDatabase() throws -> MimeGlobs {
        let mime = "/usr/share/mime/"
        try #require(FileManager.default.fileExists(atPath: mime + "globs2"), "shared-mime-info is not installed")
        func read(_ name: String) -> String? { try? String(contentsOfFile: mime + name, encoding: .utf8) }
        return MimeGlobs(directories: [(read("globs2"), read("aliases"), read("subclasses"))])
    }

    @Test(arguments: [
        ("x.AppImage", true), ("x.appimage", true), ("x.csh", true), ("x.lua", true), ("x.awk", true),
        ("x.jnlp", true), ("x.pyc", true), ("x.sh", true), ("x.desktop", true), ("x.exe", true), ("x.jar", true),
        ("x.py", true), ("x.pl", true), ("x.rb", true), ("x.msi", true), ("x.apk", true), ("x.php", true),
        ("x.txt", false), ("x.html", false), ("x.pdf", false), ("x.png", false), ("x.c", false), ("x.md", false),
    ])
    func runnableTypesFollowTheMachinesDatabase(name: String, runnable: Bool) throws {
        let globs = try Self.machineDatabase()
        let type = try #require(globs.type(ofFileNamed: name), "\(name) has a type")
        #expect((globs.runnableRoot(of: type) != nil) == runnable, "\(name) is \(type)")
    }

    @Test func aliasesAndSubclassesAreFollowed() {
        // As update-mime-database writes them: a type known to this database
        // only as a subclass, and a root spelled by its alias.
        let globs = MimeGlobs(directories: [(
            "50:application/x-new-script:*.newscript\n50:application/x-old-exe:*.oldexe\n50:text/plain:*.txt\n",
            "application/x-old-exe application/x-executable\n",
            "application/x-new-script application/x-shellscript\n"
        )])
        #expect(globs.runnableRoot(of: "application/x-new-script") == "application/x-executable"
            || globs.runnableRoot(of: "application/x-new-script") == "application/x-shellscript")
        #expect(globs.runnableRoot(of: "application/x-old-exe") == "application/x-executable")
        #expect(globs.runnableRoot(of: "text/plain") == nil)
        #expect(RunnableTypes.roots.allSatisfy { !$0.source.isEmpty })
    }

    /// A tree with the machine's MIME database, a recorder app that claims
    /// every scheme and type, and one file of each kind.
    func gatedTree() throws -> (XDGTree, [String: String]) {
        let tree = try XDGTree()
        for name in ["globs2", "aliases", "subclasses", "magic"] {
            let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/mime/" + name), "shared-mime-info is not installed")
            try FileManager.default.createDirectory(atPath: tree.root + "/usr/share/mime", withIntermediateDirectories: true)
            try bytes.write(to: URL(fileURLWithPath: tree.root + "/usr/share/mime/" + name))
        }
        let types = ["application/vnd.appimage", "application/x-csh", "text/x-lua", "application/x-java-jnlp-file",
                     "application/x-python-bytecode", "application/x-shellscript", "text/plain", "application/x-executable"]
        let schemes = ["javascript", "vbscript", "data", "https"].map { "x-scheme-handler/" + $0 }
        try tree.write("data/applications/any.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Any
            Exec=recorder any %u
            MimeType=\((schemes + types).joined(separator: ";"));
            """)
        var files: [String: String] = [:]
        // A script is runnable by its name and, named as text (issue 25), by its contents.
        for name in ["run.AppImage", "run.csh", "run.lua", "run.jnlp", "run.pyc", "run.sh", "script.txt"] {
            try tree.write("home/" + name, "#!/bin/sh\n")
            files[name] = "file://" + tree.root + "/home/" + name
        }
        try tree.write("home/notes.txt", "plain notes\n")
        files["notes.txt"] = "file://" + tree.root + "/home/notes.txt"
        // An encoded "/" (issue 25): decoded, it would name home/sub/b.txt, a
        // plain text file that would open.
        try tree.write("home/sub/b.txt", "plain\n")
        files["sub%2Fb.txt"] = "file://" + tree.root + "/home/sub%2Fb.txt"
        return (tree, files)
    }

    static let refusedURLs = ["javascript:alert(1)", "vbscript:msgbox(1)", "data:text/html,<script>alert(1)</script>"]

    @Test(arguments: ["fallback", "Open=", "Exec="])
    func everyEntryToTheLauncherPassesTheGate(path: String) async throws {
        let (tree, files) = try gatedTree()
        let fallback = DesktopURLOpener(environment: tree.environment, connection: nil, reaper: Self.reaper)
        func open(_ text: String) async throws -> LaunchResult {
            let url = try ValidatedURL(text)
            switch path {
            case "fallback": return await fallback.open(url, activationToken: nil)
            case "Open=": return await fallback.open(url, with: .application("any.desktop"), activationToken: nil)
            default: return await fallback.run("recorder exec %u", with: url, name: "exec", activationToken: nil)
            }
        }
        for text in Self.refusedURLs + files.filter({ $0.key != "notes.txt" }).map(\.value) {
            let result = try await open(text)
            guard case .refused(let reason) = result else {
                Issue.record("\(path): \(text) was not refused: \(result)")
                continue
            }
            #expect(!reason.isEmpty)
        }
        // The control: the same path opens a plain text file.
        let result = try await open(files["notes.txt"]!)
        #expect(result == .opened(application: path == "Exec=" ? "exec" : "any.desktop"), "\(result)")
        let records = try await tree.waitForRecords(1)
        #expect(records.map(\.arguments) == [[files["notes.txt"]!]], "only the control was launched")
    }

    /// The daemon with the desktop's own opener on `gatedTree()`, and two
    /// connections of its bus: one to register a handler on, one to call from.
    func withGatedDaemon(
        handlerTimeout: Duration = .seconds(5), _ body: (DaemonHarness, XDGTree, Connection, Connection) async throws -> Void
    ) async throws {
        let (tree, _) = try gatedTree()
        try await DaemonHarness.with(handlerTimeout: handlerTimeout, opener: { connection in
            DesktopURLOpener(environment: tree.environment, connection: connection, reaper: Self.reaper)
        }) { d in
            let handler = try await d.bus.connect()
            let client = try await d.bus.connect()
            defer { [handler, client].forEach { $0.close() } }
            try await body(d, tree, handler, client)
        }
    }

    /// What the fallback refuses from the URL alone, which the daemon
    /// answers at once on the bus's loop (`Router.routeAtOnce`), is refused
    /// with the words its `open` uses, for every refused scheme; a URL only
    /// opening can judge (a file, a web page) has no such refusal.
    @Test func theRefusalFromTheURLAloneIsTheOneOpeningGives() async throws {
        let (tree, files) = try gatedTree()
        let fallback = DesktopURLOpener(environment: tree.environment, connection: nil, reaper: Self.reaper)
        for scheme in RefusedScheme.allCases {
            #expect(RefusedScheme(scheme.name) == scheme)
            let url = try ValidatedURL(scheme.name + ":x")
            let reason = try #require(fallback.refusal(of: url), "\(scheme)")
            #expect(reason == scheme.reason)
            #expect(await fallback.open(url, activationToken: nil) == .refused(reason: reason))
        }
        // Names of a refused scheme's length, and near misses, are not refused.
        for other in ["javascripx", "xavascript", "vbscripx", "vbscripts", "date", "dat", "datas", "https", "javascript-x"] {
            #expect(RefusedScheme(other) == nil, "\(other)")
        }
        for text in ["https://example.com/", files["run.csh"]!, files["notes.txt"]!] {
            #expect(fallback.refusal(of: try ValidatedURL(text)) == nil, "\(text)")
        }
    }

    /// The daemon answers a URL the fallback refuses outright without a
    /// walk, with the fallback's reason: at once, while the caller holds its
    /// whole share of walks (a refusal walked in a task would queue behind
    /// them until a handler answered, 30 s away). A handler that takes the
    /// scheme is still asked first, as the walk asks it.
    @Test func aRefusedSchemeIsAnsweredAtOnceUnlessAHandlerTakesIt() async throws {
        try await withGatedDaemon(handlerTimeout: .seconds(30)) { d, tree, handler, client in
            let released = Mutex(false)
            let (asked, ask) = AsyncStream<Void>.makeStream()
            try await d.register(handler, spec(["https"], name: "waiter")) { _, _ in
                ask.yield()
                while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
                return answer("discarded")
            }
            let share = Connection.maximumCallsRunningPerSender
            let held = (0..<share).map { index in Task { try await d.open(client, "https://held.example/\(index)") } }
            var running = 0
            for await _ in asked {
                running += 1
                if running == share { break }
            }
            let refusal: (Bool, [String: Variant])?
            do {
                refusal = try await d.call(client, "OpenURLWithOptions", [.string("javascript:alert(1)"), [String: Variant]().dbusValue], timeout: .seconds(10))
                    .decode(Bool.self, [String: Variant].self)
            } catch {
                Issue.record("the refusal waited behind the held walks: \(error)")
                refusal = nil
            }
            released.withLock { $0 = true }
            for walk in held { #expect(try await walk.value == false) }
            let (accepted, refused) = try #require(refusal)
            #expect(!accepted)
            #expect(refused["outcome"] == Variant("refused"), "\(refused)")
            #expect(refused["message"] == Variant(RefusedScheme.javascript.reason), "\(refused)")
            try await d.register(handler, path: "/scripts", spec(["javascript"], name: "sandbox")) { _, _ in answer("handled") }
            let (taken, handled) = try await d.openWithOptions(client, "javascript:alert(1)")
            #expect(taken)
            #expect(handled["outcome"] == Variant("handled"), "\(handled)")
            #expect(tree.recorded().isEmpty)
        }
    }

    /// The daemon answers at once from its own handler list and its rules,
    /// without building a router: a rule for a refused scheme must still be
    /// seen, and the URL walked to it, as a handler for one is above.
    @Test func aRuleForARefusedSchemeIsWalkedNotAnsweredAtOnce() async throws {
        try await withGatedDaemon { d, tree, _, client in
            let directory = try makeTemporaryDirectory(prefix: "openurld-gate-rules")
            try "[Rule scripts]\nSchemes=vbscript\nResult=discarded\n".write(toFile: directory + "/10-scripts.rules", atomically: true, encoding: .utf8)
            d.dispatcher.replaceRules(with: RuleFiles.load(from: [directory]))
            let (kept, ruled) = try await d.openWithOptions(client, "vbscript:msgbox(1)")
            #expect(!kept)
            #expect(ruled["outcome"] == Variant("discarded"), "\(ruled)")
            let (opened, refused) = try await d.openWithOptions(client, "javascript:alert(1)")
            #expect(!opened)
            #expect(refused["outcome"] == Variant("refused"), "\(refused)")
            #expect(refused["message"] == Variant(RefusedScheme.javascript.reason), "\(refused)")
            #expect(tree.recorded().isEmpty)
        }
    }

    /// A chooser that picks `any.desktop` and, as if the person edited the
    /// address with Ctrl+L, returns another URL.
    struct EditingChooser: Chooser {
        let edited: String
        func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice {
            guard let url = try? ValidatedURL(edited) else { return .lost("bad test URL") }
            return .target(.application("any.desktop"), url: url, activationToken: nil, remember: .none)
        }
    }

    @Test(arguments: refusedURLs + ["file-csh"])
    func anEditedAddressPassesTheGate(edited: String) async throws {
        let (tree, files) = try gatedTree()
        let target = edited == "file-csh" ? files["run.csh"]! : edited
        try await DaemonHarness.with(
            opener: { connection in
                DesktopURLOpener(environment: tree.environment, connection: connection, reaper: Self.reaper)
            },
            asking: .init(chooser: EditingChooser(edited: target))
        ) { d in
            let client = try await d.bus.connect()
            defer { client.close() }
            let (accepted, result) = try await d.openWithOptions(client, "https://example.com/", ["ask": Variant(true)])
            #expect(!accepted, "\(result)")
            #expect(result["outcome"] == Variant("undecided"), "the default does not open the URL instead: \(result)")
            #expect(tree.recorded().isEmpty)
        }
    }

    @Test(arguments: refusedURLs)
    func aHandlersRewritePassesTheGate(rewrite: String) async throws {
        try await withGatedDaemon { d, tree, handler, client in
            try await d.register(handler, spec(["https"], name: "rewriter")) { _, _ in answer("systemAction", rewrite) }
            let (accepted, result) = try await d.openWithOptions(client, "https://example.com/")
            #expect(!accepted)
            #expect(result["outcome"] == Variant("refused"), "\(result)")
            #expect(tree.recorded().isEmpty)
        }
    }
}
