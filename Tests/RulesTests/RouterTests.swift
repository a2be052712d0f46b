import Router
import Routing
import Rules
import Synchronization
import Testing

/// The one router, without a bus: run-time handlers (asked through a
/// closure) and rules in one order, one deadline, the fallback, the report.
struct RouterTests {
    /// A fallback that records what it was asked to open.
    final class Recorder: URLOpener {
        let opened = Mutex<[String]>([])
        func application(for url: ValidatedURL) -> String? { "fallback.desktop" }
        func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult {
            opened.withLock { $0.append(url.text) }
            return .opened(application: "fallback.desktop")
        }
        func open(_ url: ValidatedURL, with target: Target, activationToken: String?) async -> LaunchResult {
            let id = target.description
            opened.withLock { $0.append("\(id) \(url.text)") }
            return .opened(application: id)
        }
    }

    /// Handlers named by their answers, registered at the given priorities.
    static func registry(_ handlers: [(priority: Int32, name: String)]) throws -> HandlerRegistry<String> {
        var registry = HandlerRegistry<String>()
        for handler in handlers {
            _ = try registry.register(try HandlerSpec(schemes: ["https"], priority: handler.priority, name: handler.name), owner: ":1.1", payload: handler.name)
        }
        return registry
    }

    static func rules(_ text: String) -> RuleSet { RuleSet(RuleParser.parse(text, path: "test.rules").rules) }

    @Test func handlersAndRulesTakeTurnsByPriorityAndTheFallbackGetsTheLastURL() async throws {
        let registry = try Self.registry([(10, "tag-h10"), (0, "tag-h0")])
        let asked = Mutex<[String]>([])
        let fallback = Recorder()
        let router = Router<String>(
            rules: Self.rules("[Rule r5]\nPriority=5\nMatch=^(.*)$\nRewrite=$1-r5\n"),
            handlers: { url, position in registry.candidates(for: url, caller: ":1.9", outside: position) },
            ask: { handler, url, _ in
                asked.withLock { $0.append(handler.payload) }
                return .rewrite(url.text + "-" + handler.payload.dropFirst(4))
            },
            opener: fallback, deadline: .seconds(20))
        let route = await router.open(try ValidatedURL("https://example.com/x"), caller: ":1.9", callerAppID: nil, activationToken: nil)
        #expect(asked.withLock { $0 } == ["tag-h10", "tag-h0"])
        #expect(route.outcome == .opened && route.application == "fallback.desktop")
        #expect(route.finalURL.text == "https://example.com/x-h10-r5-h0")
        #expect(route.trace.map(\.handlerName) == ["tag-h10", "r5", "tag-h0"])
        #expect(fallback.opened.withLock { $0 } == ["https://example.com/x-h10-r5-h0"])
    }

    @Test func aRulesOpenReportsItsApplication() async throws {
        let fallback = Recorder()
        let route = await Router<Never>(rules: Self.rules("[Rule zoom]\nHosts=zoom.us\nOpen=zoom.desktop\n"), opener: fallback, deadline: .seconds(20))
            .open(try ValidatedURL("https://zoom.us/j/1"), caller: "", callerAppID: nil, activationToken: nil)
        #expect(route.outcome == .handled && route.rule == "zoom" && route.application == "zoom.desktop")
        #expect(fallback.opened.withLock { $0 } == ["zoom.desktop https://zoom.us/j/1"])
    }

    /// A fallback that refuses `javascript:` from the URL alone, and opens the rest.
    final class Refuser: URLOpener {
        static let reason = "javascript: URLs run code"
        let opened = Mutex(0)
        func application(for url: ValidatedURL) -> String? { nil }
        func refusal(of url: ValidatedURL) -> String? { url.scheme == "javascript" ? Self.reason : nil }
        func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult {
            opened.withLock { $0 += 1 }
            return refusal(of: url).map { .refused(reason: $0) } ?? .opened(application: "fallback.desktop")
        }
    }

    /// The route known without waiting is the one the walk takes: only when
    /// nothing takes part and the fallback refuses the URL outright. A
    /// handler or rule for the URL, asking first, or a URL the fallback
    /// would open, leave it to the walk.
    @Test func aRouteIsKnownAtOnceOnlyWhenNothingTakesPartAndTheFallbackRefuses() async throws {
        let script = try ValidatedURL("javascript:alert(1)")
        let fallback = Refuser()
        let plain = Router<Never>(rules: RuleSet(), opener: fallback, deadline: .seconds(20))
        let atOnce = try #require(plain.routeAtOnce(script, callerAppID: nil))
        #expect(atOnce.outcome == .refused && atOnce.message == Refuser.reason && atOnce.finalURL == script && atOnce.trace.isEmpty)
        #expect(await plain.open(script, caller: ":1.9", callerAppID: nil, activationToken: nil) == atOnce)
        #expect(fallback.opened.withLock { $0 } == 0, "decided without opening")
        #expect(plain.routeAtOnce(try ValidatedURL("https://example.com/"), callerAppID: nil) == nil)
        #expect(plain.routeAtOnce(script, callerAppID: nil, asking: .init(first: true)) == nil)

        var registry = HandlerRegistry<String>()
        _ = try registry.register(try HandlerSpec(schemes: ["javascript"], name: "sandbox"), owner: ":1.1", payload: "sandbox")
        let handled = Router<String>(
            rules: RuleSet(), handlers: { [registry] url, position in registry.candidates(for: url, caller: ":1.9", outside: position) },
            ask: { _, _, _ in .handled }, opener: fallback, deadline: .seconds(20))
        #expect(handled.routeAtOnce(script, callerAppID: nil) == nil)
        #expect(await handled.open(script, caller: ":1.9", callerAppID: nil, activationToken: nil).outcome == .handled)

        let ruled = Router<Never>(rules: Self.rules("[Rule scripts]\nSchemes=javascript\nResult=discarded\n"), opener: fallback, deadline: .seconds(20))
        #expect(ruled.routeAtOnce(script, callerAppID: nil) == nil)
        #expect(await ruled.open(script, caller: ":1.9", callerAppID: nil, activationToken: nil).outcome == .discarded)
    }

    /// One deadline for the walk: handlers not reached in time are skipped
    /// as if they passed, and the rest of the walk still ends.
    @Test func theDeadlineCutsTheWalkNotTheAnswer() async throws {
        let registry = try Self.registry([(10, "slow"), (0, "never-asked")])
        let asked = Mutex<[String]>([])
        let router = Router<String>(
            rules: RuleSet(),
            handlers: { url, position in registry.candidates(for: url, caller: ":1.9", outside: position) },
            ask: { handler, _, timeLeft in
                asked.withLock { $0.append(handler.payload) }
                try? await Task.sleep(for: timeLeft + .milliseconds(20))
                return .systemAction
            },
            opener: Recorder(), deadline: .milliseconds(100))
        let route = await router.open(try ValidatedURL("https://example.com/"), caller: ":1.9", callerAppID: nil, activationToken: nil)
        #expect(asked.withLock { $0 } == ["slow"])
        #expect(route.trace.last?.answer == .failed("not asked: the walk deadline passed"))
        #expect(route.outcome == .opened)
    }

    @Test func explainingPerformsNothing() async throws {
        let fallback = Recorder()
        let registry = try Self.registry([(3, "live")])
        let asked = Mutex(0)
        let router = Router<String>(
            rules: Self.rules("[Rule zoom]\nHosts=zoom.us\nPriority=1\nOpen=zoom.desktop\n"),
            handlers: { url, position in registry.candidates(for: url, caller: "", outside: position) },
            ask: { _, _, _ in asked.withLock { $0 += 1 }; return .handled },
            opener: fallback, deadline: .seconds(20))
        let (steps, application) = await router.explain(try ValidatedURL("https://zoom.us/j/1"), caller: "", callerAppID: nil)
        #expect(steps.map(\.step.spec.name) == ["live", "zoom"])
        #expect(steps.map(\.answer) == [.systemAction, .handled])
        #expect(steps.last?.effect == "would open https://zoom.us/j/1 with zoom.desktop")
        #expect(application == nil, "the rule stops the walk before the fallback")
        #expect(asked.withLock { $0 } == 0 && fallback.opened.withLock { $0 }.isEmpty)
    }
}
