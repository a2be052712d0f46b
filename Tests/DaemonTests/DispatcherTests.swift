import DBus
import Desktop
import DispatcherAPI
import Foundation
@testable import OpenURLDaemon
import Router
import Synchronization
import TestSupport
import Testing

/// The real dispatcher on a private bus, driven by real client connections.
@Suite(.timeLimit(.minutes(1)))
struct DispatcherTests {
    @Test(arguments: [nil, "token-1"])
    func theHandlerContextGoesOutAsItsDictionary(token: String?) throws {
        let context = DispatcherAPI.HandlerContext(
            caller: ":1.7", callerAppID: "org.example.Mail", originalURL: "https://a.example/", activationToken: token)
        // Written as it is sent, it reads as the URL and the context's
        // dictionary, under the contract's signature, and back as the context.
        let message = Message.methodCall(
            destination: ":1.9", path: "/h0", interface: DispatcherAPI.handlerInterface, member: DispatcherAPI.Member.handleURL,
            body: try context.handleURLArguments(url: "https://b.example/"))
        #expect(message.signature == Signature(DispatcherAPI.Signatures.handleURL.arguments.map(\.type)))
        let arguments = try message.arguments()
        #expect(arguments.first == .string("https://b.example/"))
        // In the key order a dictionary goes out in: the same bytes as the dictionary sent.
        #expect(arguments.dropFirst().first == context.dictionary.dbusValue)
        let decoded = try #require(arguments.dropFirst().first.flatMap { [String: Variant](dbusValue: $0) })
        #expect(decoded == context.dictionary)
        #expect(DispatcherAPI.HandlerContext(decoding: decoded, url: "https://b.example/") == context)
    }

    @Test func withNoHandlersTheSystemDefaultDecides() async throws {
        try await DaemonHarness.with { d in
            let client = try await d.bus.connect()
            #expect(try await d.open(client, "HTTPS://Example.com/a b%20c".replacingOccurrences(of: " ", with: "")))
            #expect(d.fallback.urls == ["https://Example.com/ab%20c"])
            let (accepted, result) = try await d.openWithOptions(client, "https://example.com/", ["activation-token": Variant("tok-1")])
            #expect(accepted)
            #expect(result == ["outcome": Variant("opened"), "url": Variant("https://example.com/"), "application": Variant("recorder.desktop")])
            #expect(d.fallback.opened.withLock { $0.last?.token } == "tok-1")
        }
    }

    @Test func fallbackFailuresAreRejections() async throws {
        for (answer, outcome) in [
            (LaunchResult.noApplication(reason: "nothing for zzz:"), "no-application"),
            (.launchFailed(application: "x.desktop", reason: "ENOENT"), "launch-failed"),
            (.refused(reason: "javascript: URLs are never opened"), "refused"),
        ] {
            try await DaemonHarness.with(fallback: RecordingOpener(answer: answer)) { d in
                let client = try await d.bus.connect()
                let (accepted, result) = try await d.openWithOptions(client, "zzz:x")
                #expect(!accepted)
                #expect(result["outcome"] == Variant(outcome))
                #expect(result["message"] != nil)
                #expect(try await d.open(client, "zzz:x") == false)
            }
        }
    }

    @Test func invalidURLsAreInvalidArgsWithTheReason() async throws {
        try await DaemonHarness.with { d in
            let client = try await d.bus.connect()
            for (url, reason) in [("", "URL is empty"), ("no scheme", "URL contains whitespace at offset 2"), ("1x:y", "URL scheme must start with a letter")] {
                let error = await #expect(throws: DBusError.self) { try await d.open(client, url) }
                #expect(error == .invalidArgs(reason))
            }
            let wrongType = await #expect(throws: DBusError.self) {
                try await d.call(client, "OpenURLWithOptions", [.string("https://x"), ["activation-token": Variant(UInt32(1))].dbusValue])
            }
            #expect(wrongType == .invalidArgs("option 'activation-token' must have type 's', not 'u'"))
            #expect(d.fallback.urls.isEmpty)
        }
    }

    @Test func theChainDecidesEndToEnd() async throws {
        try await DaemonHarness.with { d in
            let outerApp = try await d.bus.connect()
            let innerApp = try await d.bus.connect()
            let caller = try await d.bus.connect()
            let seenOuter = Mutex<[String]>([])
            // Outer: handles zoommtg:, passes everything else on.
            try await d.register(outerApp, spec(["https", "zoommtg"], name: "outer")) { url, _ in
                seenOuter.withLock { $0.append(url) }
                return url.hasPrefix("zoommtg:") ? answer("handled") : answer("systemAction")
            }
            // Inner (newer): blocks ads, rewrites zoom links, passes the rest.
            try await d.register(innerApp, spec(["https"], name: "inner")) { url, _ in
                if url.contains("ads.example") { return answer("discarded") }
                if url.hasPrefix("https://zoom.us/j/") { return answer("systemAction", "zoommtg://zoom.us/join?confno=" + url.dropFirst(18)) }
                return answer("systemAction")
            }
            #expect(try await d.open(caller, "https://ads.example/x") == false)
            let (zoomAccepted, zoom) = try await d.openWithOptions(caller, "https://zoom.us/j/42")
            #expect(zoomAccepted)
            #expect(zoom["outcome"] == Variant("handled"))
            #expect(zoom["url"] == Variant("zoommtg://zoom.us/join?confno=42"))
            #expect(zoom["handler"] == Variant(UInt32(1)))
            #expect(try await d.open(caller, "https://example.com/"))
            #expect(d.fallback.urls == ["https://example.com/"])
            #expect(seenOuter.withLock { $0 } == ["zoommtg://zoom.us/join?confno=42", "https://example.com/"])
        }
    }

    @Test func callerScopedHandlersServeOnlyTheirOwner() async throws {
        try await DaemonHarness.with { d in
            let app = try await d.bus.connect()
            let other = try await d.bus.connect()
            try await d.register(app, spec(["https"], priority: -100, scope: "caller", name: "mine")) { _, _ in answer("handled") }
            try await d.register(other, path: "/session", spec(["https"], priority: 100, name: "everyone")) { _, _ in answer("systemAction") }
            let (mine, result) = try await d.openWithOptions(app, "https://x/")
            #expect(mine && result["handler"] == Variant(UInt32(1)))
            let (theirs, fallback) = try await d.openWithOptions(other, "https://x/")
            #expect(theirs && fallback["outcome"] == Variant("opened"))
        }
    }

    @Test func handlersReceiveTheirContext() async throws {
        try await DaemonHarness.with { d in
            let handlerApp = try await d.bus.connect()
            let caller = try await d.bus.connect()
            let seen = Mutex<[String: Variant]>([:])
            try await d.register(handlerApp, spec(["https"])) { _, context in
                seen.withLock { $0 = context }
                return answer("handled")
            }
            _ = try await d.openWithOptions(caller, "HTTPS://x/", ["activation-token": Variant("tok")])
            let context = seen.withLock { $0 }
            #expect(context["caller"] == Variant(caller.uniqueName.rawValue))
            #expect(context["original-url"] == Variant("https://x/"))
            #expect(context["activation-token"] == Variant("tok"))
            // This test process is the caller; outside an app scope, its
            // name comes from /proc/PID/comm.
            let comm = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
            let cgroup = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
            #expect(context["caller-app-id"]?.get(String.self) == (CallerIdentities.appID(fromCgroup: cgroup) ?? comm))
        }
    }

    @Test func aHandlerThatNeverAnswersCostsOnlyItsTurn() async throws {
        // The timeout bounds the answering handler too: 2 s, so that a loaded
        // machine cannot make it late and the walk end somewhere else.
        try await DaemonHarness.with(handlerTimeout: .seconds(2)) { d in
            let slow = try await d.bus.connect()
            let outer = try await d.bus.connect()
            let caller = try await d.bus.connect()
            try await d.register(outer, spec(["https"], name: "outer")) { _, _ in answer("handled") }
            try await d.register(slow, spec(["https"], name: "asleep")) { _, _ in
                try? await Task.sleep(for: .seconds(3600))
                return answer("handled")
            }
            let clock = ContinuousClock()
            let start = clock.now
            let (accepted, result) = try await d.openWithOptions(caller, "https://x/")
            #expect(accepted && result["handler"] == Variant(UInt32(1)))
            // The sleeper would hold the walk for an hour; the bound is loose
            // so that a loaded machine cannot fail it, and tight enough for that.
            #expect(clock.now - start < .seconds(10))
        }
    }

    @Test func malformedAnswersAreSkipped() async throws {
        try await DaemonHarness.with { d in
            let outer = try await d.bus.connect()
            let caller = try await d.bus.connect()
            try await d.register(outer, spec(["https"], name: "outer")) { _, _ in answer("handled") }
            let cases: [(String, [Argument], [Value])] = [
                ("unknown-result", [Argument("r", .string), Argument("u", .string)], answer("maybe")),
                ("wrong-signature", [Argument("r", .uint32)], [.uint32(1)]),
                ("invalid-rewrite", [Argument("r", .string), Argument("u", .string)], answer("systemAction", "not a url")),
            ]
            for (name, results, values) in cases {
                let misbehaving = try await d.bus.connect()
                try await d.register(misbehaving, spec(["https"], name: name), results: results) { _, _ in values }
                let (accepted, result) = try await d.openWithOptions(caller, "https://x/")
                #expect(accepted, "\(name)")
                #expect(result["handler"] == Variant(UInt32(1)), "\(name)")
                #expect(result["url"] == Variant("https://x/"), "\(name)")
                misbehaving.close()
            }
        }
    }

    @Test func aHandlerClosingMidCallIsSkippedPromptly() async throws {
        // A long handler timeout, so that only noticing the departure ends the call in time.
        try await DaemonHarness.with(handlerTimeout: .seconds(60), walkDeadline: .seconds(60)) { d in
            let leaving = try await d.bus.connect()
            let caller = try await d.bus.connect()
            try await d.register(leaving, spec(["https"])) { _, _ in
                try? await Task.sleep(for: .seconds(3600))
                return answer("handled")
            }
            let clock = ContinuousClock()
            let start = clock.now
            let opening = Task { try await d.open(caller, "https://x/") }
            try await Task.sleep(for: .milliseconds(200))
            leaving.close()
            #expect(try await opening.value)  // fell through to the system default
            #expect(clock.now - start < .seconds(10), "the departure ended the call, not the 60 s timeout")
        }
    }

    @Test func handlersDisappearWithTheirConnection() async throws {
        try await DaemonHarness.with { d in
            let app = try await d.bus.connect()
            let observer = try await d.bus.connect()
            try await d.register(app, spec(["https"])) { _, _ in answer("handled") }
            #expect(try await d.handlers(observer).count == 1)
            app.close()
            for _ in 0..<100 where try await d.handlers(observer).count > 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await d.handlers(observer).isEmpty)
        }
    }

    @Test func aRegistrationFromAConnectionThatAlreadyLeftDoesNotStay() async throws {
        try await DaemonHarness.with { d in
            let observer = try await d.bus.connect()
            var departed: [BusName] = []
            for _ in 0..<20 {
                let app = try await d.bus.connect()
                let message = try Message.methodCall(
                    destination: DispatcherAPI.busName, path: DispatcherAPI.objectPath, interface: DispatcherAPI.dispatcherInterface,
                    member: "RegisterHandler", arguments: [.objectPath("/h"), spec(["https"]).dbusValue])
                app.send(message)
                app.close()
                departed.append(app.uniqueName)
            }
            // The bus notices each closed socket on its own schedule. Once it
            // reports a name unowned, it has sent the daemon NameOwnerChanged,
            // which the daemon reads before anything the observer sends next.
            for name in departed {
                for _ in 0..<500 where try await observer.owner(of: name) != nil {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            #expect(try await d.handlers(observer).isEmpty)
        }
    }

    @Test func registrationValidatesTheSpec() async throws {
        try await DaemonHarness.with { d in
            let app = try await d.bus.connect()
            let cases: [([String: Variant], String)] = [
                ([:], "spec key 'schemes' (as) is required"),
                (["schemes": Variant([String]())], "schemes must not be empty"),
                (["schemes": Variant("https")], "spec key 'schemes' must have type 'as', not 's'"),
                (["schemes": Variant(["https"]), "sheme": Variant("x")], "unknown spec key 'sheme' (known keys: hosts, name, paths, priority, schemes, scope)"),
                (["schemes": Variant(["https"]), "scope": Variant("global")], "spec key 'scope' must be 'session' or 'caller', not 'global'"),
                (["schemes": Variant(["ht tp"])], "'ht tp' is not a valid scheme"),
                (["schemes": Variant(["https"]), "hosts": Variant(["a.*.b"])], "host pattern 'a.*.b' may only use '*' as its whole first label ('*.example.com')"),
            ]
            for (bad, reason) in cases {
                let error = await #expect(throws: DBusError.self) {
                    try await d.call(app, "RegisterHandler", [.objectPath("/h"), bad.dbusValue])
                }
                #expect(error == .invalidArgs(reason))
            }
            #expect(try await d.handlers(app).isEmpty)
        }
    }

    @Test func unregisteringIsForOwnersOnly() async throws {
        try await DaemonHarness.with { d in
            let owner = try await d.bus.connect()
            let stranger = try await d.bus.connect()
            let id = try await d.register(owner, spec(["https"])) { _, _ in answer("handled") }
            let denied = await #expect(throws: DBusError.self) { try await d.call(stranger, "UnregisterHandler", [.uint32(id)]) }
            #expect(denied?.name == .accessDenied)
            let unknown = await #expect(throws: DBusError.self) { try await d.call(owner, "UnregisterHandler", [.uint32(999)]) }
            #expect(unknown?.name == DispatcherAPI.noSuchHandler)
            _ = try await d.call(owner, "UnregisterHandler", [.uint32(id)])
            #expect(try await d.handlers(owner).isEmpty)
        }
    }

    @Test func thePerClientLimitIsEnforcedAndOthersAreUnaffected() async throws {
        try await DaemonHarness.with(limits: .init(perOwner: 3, total: 100)) { d in
            let greedy = try await d.bus.connect()
            let modest = try await d.bus.connect()
            for i in 0..<3 { try await d.register(greedy, path: ObjectPath("/h\(i)"), spec(["https"])) { _, _ in answer("handled") } }
            let error = await #expect(throws: DBusError.self) {
                try await d.register(greedy, path: "/h9", spec(["https"])) { _, _ in answer("handled") }
            }
            #expect(error?.name == .limitsExceeded)
            try await d.register(modest, spec(["https"])) { _, _ in answer("handled") }
            #expect(try await d.handlers(modest).count == 4)
        }
    }

    @Test func listAndExplainDescribeHandlersInWalkOrder() async throws {
        try await DaemonHarness.with { d in
            let app = try await d.bus.connect()
            try await d.register(app, path: "/a", spec(["https"], hosts: ["*.example.com"], priority: 5, name: "sub")) { _, _ in answer("handled") }
            try await d.register(app, path: "/b", spec(["https", "http"], name: "web")) { _, _ in answer("handled") }
            try await d.register(app, path: "/c", spec(["mailto"], name: "mail")) { _, _ in answer("handled") }
            let all = try await d.handlers(app)
            #expect(all.map { $0["name"] } == [Variant("sub"), Variant("web"), Variant("mail")])
            #expect(all[0] == [
                "id": Variant(UInt32(1)), "name": Variant("sub"), "owner": Variant(app.uniqueName.rawValue),
                "schemes": Variant(["https"]), "hosts": Variant(["*.example.com"]), "paths": Variant([String]()),
                "priority": Variant(Int32(5)), "scope": Variant("session"),
            ])
            let (order, application) = try await d.call(app, "Explain", [.string("https://www.example.com/")])
                .decode([[String: Variant]].self, String.self)
            #expect(order.map { $0["name"] } == [Variant("sub"), Variant("web")])
            #expect(application == "recorder.desktop")
            #expect(d.fallback.urls.isEmpty, "Explain must not open anything")
        }
    }

    @Test func versionPropertyAndHandlersChangedSignal() async throws {
        try await DaemonHarness.with { d in
            let app = try await d.bus.connect()
            let version = try await app.call(
                DispatcherAPI.busName, DispatcherAPI.objectPath, "org.freedesktop.DBus.Properties", "Get",
                [.string("org.openurld.Dispatcher1"), .string("Version")])
            #expect(version == [.variant(.string(DispatcherAPI.version))])
            let (changes, continuation) = AsyncStream.makeStream(of: Void.self)
            let subscription = try await app.subscribe(
                to: MatchRule(interface: DispatcherAPI.dispatcherInterface, member: "HandlersChanged")) { _ in continuation.yield() }
            defer { subscription.cancel() }
            try await d.register(app, spec(["https"])) { _, _ in answer("handled") }
            var iterator = changes.makeAsyncIterator()
            #expect(await iterator.next() != nil)
        }
    }

    /// The slow handler answers only once the 50 other callers are served:
    /// were they queued behind it, they would never be, and the suite's time
    /// limit would fail the test. (No wall-clock bound: a loaded CI machine
    /// made one flaky.)
    @Test(.timeLimit(.minutes(1))) func aSlowHandlerForOneCallerNeverDelaysOthers() async throws {
        try await DaemonHarness.with(handlerTimeout: .seconds(60), walkDeadline: .seconds(60)) { d in
            let (release, releaseSlow) = AsyncStream.makeStream(of: Void.self)
            let slowApp = try await d.bus.connect()
            try await d.register(slowApp, spec(["https"], hosts: ["slow.example"])) { _, _ in
                for await _ in release { break }
                return answer("handled")
            }
            let slowCaller = try await d.bus.connect()
            let slow = Task { try await d.open(slowCaller, "https://slow.example/") }
            try await Task.sleep(for: .milliseconds(100))
            let served = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<50 {
                    group.addTask {
                        let client = try await d.bus.connect()
                        defer { client.close() }
                        return try await d.open(client, "https://fast.example/\(i)")
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(served == Array(repeating: true, count: 50))
            releaseSlow.yield()
            #expect(try await slow.value)
        }
    }

    @Test func freedesktopApplicationOpenDispatchesEachURI() async throws {
        try await DaemonHarness.with { d in
            let gioApp = try await d.bus.connect()
            _ = try await gioApp.call(
                DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.applicationInterface, "Open",
                [.array(.string, [.string("https://a.example/"), .string("mailto:b@example.com")]),
                 ["desktop-startup-id": Variant("startup-1")].dbusValue])
            #expect(d.fallback.opened.withLock { $0.map(\.url) } == ["https://a.example/", "mailto:b@example.com"])
            #expect(d.fallback.opened.withLock { $0.map(\.token) } == ["startup-1", "startup-1"])
            let partly = await #expect(throws: DBusError.self) {
                try await gioApp.call(
                    DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.applicationInterface, "Open",
                    [.array(.string, [.string("bad url"), .string("https://c.example/")]), [String: Variant]().dbusValue])
            }
            #expect(partly == .invalidArgs("1 of 2 URIs not opened: 'bad url' (URL contains whitespace at offset 3)"))
            #expect(d.fallback.urls.last == "https://c.example/")
            // A URI a handler turns down is not opened either, and is named (issue 14, item 4).
            let handler = try await d.bus.connect()
            defer { handler.close() }
            try await d.register(handler, spec(["https"], hosts: ["discard.example"], name: "bin")) { _, _ in answer("discarded") }
            let mixed = await #expect(throws: DBusError.self) {
                try await gioApp.call(
                    DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.applicationInterface, "Open",
                    [.array(.string, [.string("https://d.example/"), .string("bad url"), .string("https://discard.example/x")]),
                     [String: Variant]().dbusValue])
            }
            #expect(mixed?.name == DispatcherAPI.notOpened)
            #expect(mixed?.message.hasPrefix(
                "2 of 3 URIs not opened: 'bad url' (URL contains whitespace at offset 3); 'https://discard.example/x' (discarded") == true,
                "\(String(describing: mixed))")
            #expect(d.fallback.urls.last == "https://d.example/")
            _ = try await gioApp.call(
                DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.applicationInterface, "Activate",
                [[String: Variant]().dbusValue])
        }
    }

    @Test func aSecondInstanceIsRefusedWithAClearMessage() async throws {
        try await DaemonHarness.with { d in
            let second = try await d.bus.connect()
            let error = await #expect(throws: DBusError.self) {
                try await Daemon.serve(on: second, configuration: .init(), opener: NoURLOpener(), logger: .silent)
            }
            #expect(error?.message == "org.openurld.Dispatcher1 is already owned by \(d.daemon.uniqueName) (another openurld?); use --replace to take over")
        }
    }
}
