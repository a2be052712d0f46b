import Testing
import TestSupport

@testable import Routing

@Suite struct RegistryTests {
    typealias Registry = HandlerRegistry<String>

    func register(
        _ registry: inout Registry, _ name: String, owner: String = ":1.1", schemes: [String] = ["https"],
        hosts: [String] = [], paths: [String] = [], priority: Int32 = 0, scope: HandlerSpec.Scope = .session
    ) throws -> UInt32 {
        let spec = try HandlerSpec(schemes: schemes, hosts: hosts, paths: paths, priority: priority, scope: scope, name: name)
        return try registry.register(spec, owner: owner, payload: name).id
    }

    func order(_ registry: Registry, _ url: String, caller: String = ":1.9") throws -> [String] {
        try registry.candidates(for: ValidatedURL(url), caller: caller).map(\.payload)
    }

    @Test func newestFirstWithinAPriority() throws {
        var registry = Registry()
        _ = try register(&registry, "old")
        _ = try register(&registry, "middle")
        _ = try register(&registry, "new")
        #expect(try order(registry, "https://x/") == ["new", "middle", "old"])
    }

    @Test func priorityBeatsRecency() throws {
        var registry = Registry()
        _ = try register(&registry, "high-old", priority: 10)
        _ = try register(&registry, "low-new", priority: -5)
        _ = try register(&registry, "zero")
        _ = try register(&registry, "high-new", priority: 10)
        #expect(try order(registry, "https://x/") == ["high-new", "high-old", "zero", "low-new"])
    }

    @Test func callersOwnScopedHandlersComeFirstAndOnlyForThem() throws {
        var registry = Registry()
        _ = try register(&registry, "session-high", owner: ":1.2", priority: 100)
        _ = try register(&registry, "mine", owner: ":1.9", priority: -100, scope: .caller)
        _ = try register(&registry, "theirs", owner: ":1.3", priority: 100, scope: .caller)
        _ = try register(&registry, "my-session", owner: ":1.9")
        #expect(try order(registry, "https://x/", caller: ":1.9") == ["mine", "session-high", "my-session"])
        #expect(try order(registry, "https://x/", caller: ":1.3") == ["theirs", "session-high", "my-session"])
        #expect(try order(registry, "https://x/", caller: ":1.4") == ["session-high", "my-session"])
    }

    @Test func onlyMatchingHandlersAreCandidates() throws {
        var registry = Registry()
        _ = try register(&registry, "any-https")
        _ = try register(&registry, "exact", hosts: ["example.com"])
        _ = try register(&registry, "sub", hosts: ["*.example.com"])
        _ = try register(&registry, "issues", hosts: ["github.com"], paths: ["/*/*/issues/**"])
        _ = try register(&registry, "every-scheme", schemes: ["*"])
        _ = try register(&registry, "mail", schemes: ["mailto"])
        #expect(try order(registry, "https://example.com/") == ["every-scheme", "exact", "any-https"])
        #expect(try order(registry, "https://www.example.com/") == ["every-scheme", "sub", "any-https"])
        #expect(try order(registry, "https://github.com/a/b/issues/1") == ["every-scheme", "issues", "any-https"])
        #expect(try order(registry, "https://github.com/a/b/pulls/1") == ["every-scheme", "any-https"])
        #expect(try order(registry, "mailto:x@example.com") == ["mail", "every-scheme"])
        #expect(try order(registry, "zoommtg://x") == ["every-scheme"])
    }

    /// The index (by scheme, `*` apart, then by host) finds exactly what a
    /// scan of every handler would, in the same order, through a long run
    /// of registrations and removals: repeated schemes and hosts, exact and
    /// wildcard hosts, `*`, IPv6, caller-scoped handlers, owners leaving.
    @Test func theIndexFindsWhatAScanOfEveryHandlerFinds() throws {
        var registry = Registry(limits: .init(perOwner: 1000, total: 1000))
        // Seeded, so that a failure names a run that can be repeated.
        var generator = SplitMix(seed: 27)
        let schemes = [["https"], ["*"], ["https", "http"], ["mailto"], ["https", "https"]]
        let hosts = [[], ["example.com"], ["*.example.com"], ["a.example.com", "*.example.com"], ["[::1]"], ["example.com", "example.com"],
                     ["b.a.example.com"], ["*.a.example.com", "other.org"]]
        let owners = [":1.1", ":1.2", ":1.3"]
        let urls = ["https://example.com/", "https://a.example.com/x", "https://b.a.example.com/", "https://[::1]/", "http://example.com/",
                    "mailto:x@example.com", "https://other.org/", "zoom://x", "https://c.b.a.example.com/"]
        for round in 0..<400 {
            if Int.random(in: 0..<4, using: &generator) == 0, let victim = registry.all.randomElement(using: &generator) {
                if Bool.random(using: &generator) {
                    try registry.unregister(victim.id, by: victim.owner)
                } else {
                    registry.removeAll(ownedBy: victim.owner)
                }
            } else {
                _ = try register(
                    &registry, "h\(round)", owner: owners.randomElement(using: &generator)!,
                    schemes: schemes.randomElement(using: &generator)!, hosts: hosts.randomElement(using: &generator)!,
                    priority: Int32.random(in: -1...1, using: &generator), scope: Bool.random(using: &generator) ? .session : .caller)
            }
            for text in urls {
                let url = try ValidatedURL(text)
                for caller in owners {
                    let scanned = registry.all
                        .filter { $0.spec.matches(url) && ($0.spec.scope == .session || $0.owner == caller) }
                        .sorted { $0.position(for: caller) < $1.position(for: caller) }
                        .map(\.id)
                    let found = registry.candidates(for: url, caller: caller).map(\.id)
                    #expect(found == scanned, "round \(round), \(text) for \(caller)")
                    if found != scanned { return }
                }
            }
        }
    }

    @Test func aHandlerListingTwoMatchingHostsIsAskedOnce() throws {
        var registry = Registry()
        _ = try register(&registry, "both", hosts: ["a.example.com", "*.example.com"])
        #expect(try order(registry, "https://a.example.com/") == ["both"])
    }

    @Test func unregisteringChecksOwnership() throws {
        var registry = Registry()
        let id = try register(&registry, "h", owner: ":1.1")
        #expect(throws: RoutingError(.notOwner, "handler \(id) belongs to another application")) {
            try registry.unregister(id, by: ":1.2")
        }
        #expect(throws: RoutingError(.noSuchHandler, "no handler with id 999")) {
            try registry.unregister(999, by: ":1.1")
        }
        try registry.unregister(id, by: ":1.1")
        #expect(registry.count == 0)
        #expect(try order(registry, "https://x/").isEmpty)
    }

    @Test func removingAnOwnerRemovesAllItsHandlersAndIdsAreNeverReused() throws {
        var registry = Registry()
        let a = try register(&registry, "a", owner: ":1.1")
        _ = try register(&registry, "b", owner: ":1.1", hosts: ["x.org"])
        _ = try register(&registry, "c", owner: ":1.2")
        #expect(registry.removeAll(ownedBy: ":1.1").map(\.payload) == ["a", "b"])
        #expect(try order(registry, "https://x.org/") == ["c"])
        let d = try register(&registry, "d", owner: ":1.1")
        #expect(d > a + 2)
    }

    @Test func limitsAreEnforcedPerOwnerAndInTotal() throws {
        var registry = Registry(limits: .init(perOwner: 2, total: 3))
        _ = try register(&registry, "1", owner: ":1.1")
        _ = try register(&registry, "2", owner: ":1.1")
        #expect(throws: RoutingError(.limitExceeded, "an application may register at most 2 handlers")) {
            try register(&registry, "3", owner: ":1.1")
        }
        _ = try register(&registry, "3", owner: ":1.2")
        #expect(throws: RoutingError(.limitExceeded, "the dispatcher holds at most 3 handlers")) {
            try register(&registry, "4", owner: ":1.3")
        }
        registry.removeAll(ownedBy: ":1.1")
        _ = try register(&registry, "4", owner: ":1.3")
    }

    @Test func outsideAPositionOnlyOuterHandlersRemain() throws {
        var registry = Registry()
        _ = try register(&registry, "outer")
        let middle = try register(&registry, "middle")
        _ = try register(&registry, "inner")
        let position = try #require(registry.handler(middle)).position(for: ":1.9")
        #expect(try registry.candidates(for: ValidatedURL("https://x"), caller: ":1.9", outside: position).map(\.payload) == ["outer"])
    }
}
