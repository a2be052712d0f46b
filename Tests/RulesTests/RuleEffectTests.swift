import LinearRegex
import Routing
import Rules
import Testing

struct RuleEffectTests {
    static func rules(_ text: String) throws -> [Rule] {
        let (rules, diagnostics) = RuleParser.parse(text, path: "t.rules")
        try #require(diagnostics.isEmpty, "\(diagnostics)")
        return rules
    }

    @Test func queryStrippingKeepsTheRestExactly() throws {
        let globs = try ["utm_*", "fbclid", "é"].map { try PathGlob($0) }
        let cases: [(String, String)] = [
            ("https://x/?utm_a=1", "https://x/"),
            ("https://x/?b=2&utm_a=1&a=1", "https://x/?b=2&a=1"),
            ("https://x/?Z=%20&fbclid=q&a=%2F&", "https://x/?Z=%20&a=%2F&"),
            ("https://x/?utm%5Fsource=1&k", "https://x/?k"),
            ("https://x/?%C3%A9=1&k=%C3%A9", "https://x/?k=%C3%A9"),
            ("https://x/?a=1&&utm_b&c#frag?utm_c=1", "https://x/?a=1&&c#frag?utm_c=1"),
            ("https://x/#?utm_a=1", "https://x/#?utm_a=1"),
            ("https://x/?fbclid#f", "https://x/#f"),
            ("https://x/?FBCLID=1", "https://x/?FBCLID=1"),
            ("https://x/?a=1;utm_b=2", "https://x/?a=1;utm_b=2"),
            ("mailto:a@b?subject=x&utm_source=y", "mailto:a@b?subject=x"),
            ("https://x/?%zz=1&utm_x", "https://x/?%zz=1"),
            ("https://x/", "https://x/"),
        ]
        for (url, expected) in cases {
            #expect(strippingQuery(url, parameters: globs) == expected, "\(url)")
        }
    }

    @Test func templatesExpandGroupsNamesAndDollars() throws {
        let pattern = try LinearRegex("^(\\w+)://(?<host>[^/]+)(/.*)?$")
        let match = try #require(pattern.firstMatch(in: "https://example.com"))
        #expect(try URLTemplate("$1|${host}|$3|${2}|$$|$0", pattern: pattern).expand(match: match, url: "") == "https|example.com||example.com|$|https://example.com")
        #expect(try URLTemplate("view:$0", pattern: nil).expand(match: nil, url: "https://a") == "view:https://a")
        let mistakes: [(String, String)] = [
            ("$4", "refers to a group Match= does not have (it has 3)"), ("${nope}", "names no group"),
            ("a$", "at the end"), ("$x", "must be followed by"),
        ]
        for (template, reason) in mistakes {
            #expect { try URLTemplate(template, pattern: pattern) } throws: { "\($0)".contains(reason) }
        }
        #expect { try URLTemplate("$1", pattern: nil) } throws: { "\($0)".contains("needs a Match= pattern") }
    }

    @Test func templatesEncodeAndDecodeGroups() throws {
        let pattern = try LinearRegex("^x:(?<v>.*)$")
        func expand(_ template: String, _ url: String) throws -> String {
            try URLTemplate(template, pattern: pattern).expand(match: pattern.firstMatch(in: url), url: url)
        }
        #expect(try expand("${v:encode}", "x:a+b@c d/é") == "a%2Bb%40c%20d%2F%C3%A9")
        #expect(try expand("${1:encode}", "x:A-z_0.9~") == "A-z_0.9~")
        #expect(try expand("${v:decode}", "x:https%3A%2F%2Fe.com%2F%3Fq%3D1") == "https://e.com/?q=1")
        #expect(try expand("${v:decode}", "x:100%zz") == "100%zz", "malformed escapes stay as written")
        #expect(try expand("${v:decode:encode}", "x:a%2Bb+c") == "a%2Bb%2Bc", "encoded exactly once")
        for mistake in ["${v:upper}", "${v:}", "${1:encode:rot13}"] {
            #expect { try URLTemplate(mistake, pattern: pattern) } throws: { "\($0)".contains("after ':' comes encode or decode") }
        }
    }

    @Test func resultDefaultStopsTheWalkAtTheSystemDefault() async throws {
        let rules = try Self.rules("""
            [Rule upgrade]
            Schemes=http
            Rewrite=https://elsewhere.example/
            [Rule exception]
            Hosts=localhost
            Priority=5
            Rewrite=http://localhost:8000/
            Result=default
            """)
        let set = RuleSet(rules)
        let result = await walk(
            try ValidatedURL("http://localhost/"), caller: "",
            candidates: { url, position in set.candidates(for: url, callerAppID: nil, outside: position) },
            ask: { rule, url in await rule.payload.perform(on: url, opener: CookbookTests.Launches(), activationToken: nil).answer })
        #expect(result.outcome == .passedOn)
        #expect(result.finalURL.text == "http://localhost:8000/")
        #expect(result.trace.map(\.handlerName) == ["exception"], "nobody further out is asked")
        #expect(rules[1].effectDescription == "rewrite to http://localhost:8000/, then open with the system default")
    }

    @Test func conditionsMustAllHold() throws {
        let rule = try Self.rules("""
            [Rule r]
            Schemes=https
            Hosts=*.example.com
            Paths=/a/*
            Match=(?i)token=[0-9]+
            Callers=org.gnome.*;slack
            Result=discarded
            """)[0]
        let set = RuleSet([rule])
        func matches(_ url: String, _ caller: String?) throws -> Bool {
            !set.candidates(for: try ValidatedURL(url), callerAppID: caller).isEmpty
        }
        #expect(try matches("https://w.example.com/a/b?TOKEN=12", "slack"))
        #expect(try matches("https://w.example.com/a/b?token=1", "org.gnome.Terminal"))
        #expect(try !matches("http://w.example.com/a/b?token=1", "slack"))
        #expect(try !matches("https://example.com/a/b?token=1", "slack"))
        #expect(try !matches("https://w.example.com/a/b/c?token=1", "slack"))
        #expect(try !matches("https://w.example.com/a/b?token=x", "slack"))
        #expect(try !matches("https://w.example.com/a/b?token=1", "firefox"))
        #expect(try !matches("https://w.example.com/a/b?token=1", nil))
    }

    /// `Match=` is not keyfile-unescaped: `\s`, `\d` and `\\` keep their regex meaning.
    @Test func patternsAreTakenAsWritten() throws {
        let rule = try Self.rules(#"""
            [Rule r]
            Match=^mailto:(\\\S+)%20(\d+)\s*$
            Result=discarded
            """#)[0]
        #expect(rule.pattern?.pattern == #"^mailto:(\\\S+)%20(\d+)\s*$"#)
        #expect(rule.pattern?.matches(#"mailto:\x%2012 "#) == true)
        #expect(rule.pattern?.matches(#"mailto:x%2012"#) == false)
    }

    @Test func effectsApplyInOrderAndAnInvalidResultFails() throws {
        let rules = try Self.rules("""
            [Rule strip-then-rewrite]
            StripQuery=utm_*
            Match=^https://a\\.example/(.*)$
            Rewrite=https://b.example/$1
            Open=b.desktop
            [Rule bad-rewrite]
            Rewrite=not a url $0
            [Rule unchanged]
            Result=systemAction
            """)
        let url = try ValidatedURL("https://a.example/p?x=1&utm_a=2")
        #expect(rules[0].evaluate(url) == .open(try ValidatedURL("https://b.example/p?x=1"), with: .application("b.desktop")))
        guard case .failed(let reason) = rules[1].evaluate(url) else { Issue.record("the rewrite was accepted"); return }
        #expect(reason.contains("not valid"))
        #expect(rules[2].evaluate(url) == .passOn(url))
    }

    /// Rules rank by priority, come after run-time handlers of the same
    /// priority, and keep file order among themselves.
    @Test func rulesAndHandlersInterleaveByPriority() async throws {
        let rules = try Self.rules("""
            [Rule low]
            Priority=-1
            Result=systemAction
            [Rule first]
            Result=systemAction
            [Rule second]
            Result=systemAction
            [Rule high]
            Priority=5
            Result=systemAction
            [Rule off]
            Enabled=false
            Priority=100
            Result=handled
            """)
        let set = RuleSet(rules)
        #expect(set.count == 4)
        var registry = HandlerRegistry<String>()
        _ = try registry.register(try HandlerSpec(schemes: ["https"], priority: 0), owner: ":1.1", payload: "handler-0")
        _ = try registry.register(try HandlerSpec(schemes: ["https"], priority: 5), owner: ":1.1", payload: "handler-5")
        _ = try registry.register(try HandlerSpec(schemes: ["https"], priority: 0, scope: .caller), owner: ":1.9", payload: "own")
        let url = try ValidatedURL("https://example.com/")
        let merged = (registry.candidates(for: url, caller: ":1.9").map { $0.withPayload { $0 } }
            + set.candidates(for: url, callerAppID: nil).map { $0.withPayload { "rule " + $0.name } })
            .sorted { $0.position(for: ":1.9") < $1.position(for: ":1.9") }
        #expect(merged.map(\.payload) == ["own", "handler-5", "rule high", "handler-0", "rule first", "rule second", "rule low"])
    }
}
