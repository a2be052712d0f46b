import Testing

@testable import Routing

/// The walk with scripted handlers: each test says what each handler answers
/// and checks who was asked, in which order, about which URL.
@Suite struct WalkTests {
    final class Script: @unchecked Sendable {
        // @unchecked: used by one test task at a time; the walk is sequential.
        var answers: [String: (ValidatedURL) -> HandlerAnswer] = [:]
        var asked: [String] = []
    }

    var registry = HandlerRegistry<String>()

    mutating func add(
        _ name: String, owner: String = ":1.1", schemes: [String] = ["https"], hosts: [String] = [],
        priority: Int32 = 0, scope: HandlerSpec.Scope = .session
    ) throws {
        _ = try registry.register(
            HandlerSpec(schemes: schemes, hosts: hosts, priority: priority, scope: scope, name: name), owner: owner,
            payload: name)
    }

    func run(_ url: String, caller: String = ":1.9", script: Script, deadline: Int = .max) async throws -> WalkResult {
        let registry = registry
        var remaining = deadline
        return await walk(
            try ValidatedURL(url), caller: caller,
            candidates: { registry.candidates(for: $0, caller: caller, outside: $1) },
            ask: { handler, url in
                script.asked.append("\(handler.payload)@\(url.text)")
                return script.answers[handler.payload]?(url) ?? .systemAction
            },
            mayContinue: {
                remaining -= 1
                return remaining >= 0
            })
    }

    @Test mutating func handledStops() async throws {
        try add("outer")
        try add("inner")
        let script = Script()
        script.answers["inner"] = { _ in .handled }
        let result = try await run("https://x/", script: script)
        #expect(result.outcome == .handled(by: 2))
        #expect(script.asked == ["inner@https://x/"])
    }

    @Test mutating func discardedStopsAndRejects() async throws {
        try add("outer")
        try add("blocker", hosts: ["ads.example"])
        let script = Script()
        script.answers["blocker"] = { _ in .discarded }
        let result = try await run("https://ads.example/x", script: script)
        #expect(result.outcome == .discarded(by: 2))
        #expect(!result.wasHandled)
        #expect(script.asked == ["blocker@https://ads.example/x"])
    }

    @Test mutating func passingOnReachesEveryoneThenTheSystemDefault() async throws {
        try add("a")
        try add("b")
        try add("c")
        let script = Script()
        let result = try await run("https://x/", script: script)
        #expect(result.outcome == .passedOn)
        #expect(result.finalURL.text == "https://x/")
        #expect(script.asked == ["c@https://x/", "b@https://x/", "a@https://x/"])
        #expect(result.trace.map(\.handlerName) == ["c", "b", "a"])
    }

    @Test mutating func aRewriteReachesOnlyOuterHandlersOfTheNewScheme() async throws {
        try add("zoom-outer", schemes: ["zoommtg"])          // 1: outer than the rewriter
        try add("https-outer")                               // 2
        try add("rewriter", hosts: ["zoom.us"])              // 3
        try add("zoom-inner", schemes: ["zoommtg"])          // 4: inner, already passed
        let script = Script()
        script.answers["rewriter"] = { _ in .rewrite("zoommtg://zoom.us/join?confno=1") }
        script.answers["zoom-outer"] = { _ in .handled }
        let result = try await run("https://zoom.us/j/1", script: script)
        #expect(result.outcome == .handled(by: 1))
        #expect(result.finalURL.text == "zoommtg://zoom.us/join?confno=1")
        #expect(script.asked == ["rewriter@https://zoom.us/j/1", "zoom-outer@zoommtg://zoom.us/join?confno=1"])
    }

    @Test mutating func aRewriteToAnInvalidURLCountsAsAFailure() async throws {
        try add("outer")
        try add("bad")
        let script = Script()
        script.answers["bad"] = { _ in .rewrite("not a url") }
        let result = try await run("https://x/", script: script)
        #expect(result.outcome == .passedOn)
        #expect(result.finalURL.text == "https://x/")
        #expect(script.asked == ["bad@https://x/", "outer@https://x/"])
        #expect(result.trace[0].note == "ignored the rewrite: URL contains whitespace at offset 3")
    }

    @Test mutating func aFailingHandlerIsSkippedAndReported() async throws {
        try add("outer")
        try add("broken")
        let script = Script()
        script.answers["broken"] = { _ in .failed("no reply within 5 s") }
        script.answers["outer"] = { _ in .handled }
        let result = try await run("https://x/", script: script)
        #expect(result.outcome == .handled(by: 1))
        #expect(result.trace.map(\.answer) == [.failed("no reply within 5 s"), .handled])
    }

    @Test mutating func callerScopedHandlersAreIsolated() async throws {
        try add("c1-only", owner: ":1.1", scope: .caller)
        try add("everyone", owner: ":1.2")
        let script = Script()
        script.answers["c1-only"] = { _ in .handled }
        let fromC2 = try await run("https://x/", caller: ":1.3", script: script)
        #expect(fromC2.outcome == .passedOn)
        #expect(script.asked == ["everyone@https://x/"])
        let fromC1 = try await run("https://x/", caller: ":1.1", script: script)
        #expect(fromC1.outcome == .handled(by: 1))
    }

    @Test mutating func rewritePingPongTerminates() async throws {
        try add("to-b", hosts: ["a.example"])
        try add("to-a", hosts: ["b.example"])
        try add("to-b-again", hosts: ["a.example"])
        let script = Script()
        script.answers["to-b"] = { _ in .rewrite("https://b.example/") }
        script.answers["to-b-again"] = { _ in .rewrite("https://b.example/") }
        script.answers["to-a"] = { _ in .rewrite("https://a.example/") }
        let result = try await run("https://a.example/", script: script)
        #expect(result.outcome == .passedOn)
        #expect(script.asked == ["to-b-again@https://a.example/", "to-a@https://b.example/", "to-b@https://a.example/"])
        #expect(result.finalURL.text == "https://b.example/")
    }

    @Test mutating func removedOwnersAreNotAsked() async throws {
        try add("gone", owner: ":1.5")
        try add("stays", owner: ":1.6")
        registry.removeAll(ownedBy: ":1.5")
        let script = Script()
        _ = try await run("https://x/", script: script)
        #expect(script.asked == ["stays@https://x/"])
    }

    @Test mutating func pastTheDeadlineTheRestIsSkipped() async throws {
        try add("a")
        try add("b")
        try add("c")
        let script = Script()
        let result = try await run("https://x/", script: script, deadline: 1)
        #expect(script.asked == ["c@https://x/"])
        #expect(result.outcome == .passedOn)
        #expect(result.trace.map(\.answer) == [.systemAction, .failed("not asked: the walk deadline passed"), .failed("not asked: the walk deadline passed")])
    }
}
