import Foundation
import LinearRegex
import Testing

struct LinearRegexTests {
    /// pattern, text, expected whole match (nil: no match)
    static let table: [(String, String, String?)] = [
        ("abc", "xxabcxx", "abc"),
        ("^abc", "xxabc", nil),
        ("abc$", "abcx", nil),
        ("a.c", "a/c", "a/c"),
        ("a*", "bbb", ""),
        ("a+", "baaa", "aaa"),
        ("a+?", "baaa", "a"),
        ("a{2,3}", "aaaa", "aaa"),
        ("a{2,3}?", "aaaa", "aa"),
        ("a{2}", "a", nil),
        ("a{2,}", "aaaaa", "aaaaa"),
        ("colou?r", "my color", "color"),
        ("[a-c]+", "xxabcabd", "abcab"),
        ("[^/]+", "https://x", "https:"),
        ("[-a]+", "--a-", "--a-"),
        ("[a-]+", "a--", "a--"),
        ("[]a]+", "]a]", "]a]"),
        ("\\d+", "v12.3", "12"),
        ("\\w+", "--foo_1--", "foo_1"),
        ("\\s", "a b", " "),
        ("\\bfoo\\b", "afoo foo", "foo"),
        ("\\Bfoo", "foo afoo", "foo"),
        ("https?://(www\\.)?twitter\\.com/.*", "see https://twitter.com/x", "https://twitter.com/x"),
        ("(?i)ZOOM\\.us", "https://us02web.zoom.US/j/1", "zoom.US"),
        ("a|ab", "ab", "a"),
        ("ab|a", "ab", "ab"),
        ("(a|b)*c", "ababc", "ababc"),
        ("(a*)*b", "aaab", "aaab"),
        ("(a*)+$", "aaa", "aaa"),
        ("()", "x", ""),
        ("é+", "caféé!", "éé"),
        ("[α-ω]+", "ab αβγ", "αβγ"),
        ("\\.", "a.b", "."),
        ("x\\*", "x*", "x*"),
    ]

    @Test func tableMatches() throws {
        for (pattern, text, expected) in Self.table {
            let regex = try LinearRegex(pattern)
            #expect(regex.firstMatch(in: text)?[0] == expected, "\(pattern) on \(text)")
        }
    }

    @Test func capturesAndNamedGroups() throws {
        let regex = try LinearRegex("^https://(?<host>[^/]+)/(\\w+)(/(x))?")
        let match = try #require(regex.firstMatch(in: "https://github.com/work/repo"))
        #expect(match["host"] == "github.com")
        #expect(match[1] == "github.com")
        #expect(match[2] == "work")
        #expect(match[3] == nil)
        #expect(match[4] == nil)
        #expect(match[9] == nil)
        #expect(regex.captureCount == 4)
        #expect(regex.groupNames == ["host": 1])
        // The last iteration's capture is kept, as in Perl and Python.
        #expect(try LinearRegex("(\\w)+").firstMatch(in: "abc")?[1] == "c")
        #expect(try LinearRegex("(?P<x>a)").firstMatch(in: "a")?["x"] == "a")
    }

    @Test func unsupportedOrMalformedPatternsAreRefusedWithTheOffset() {
        let cases: [(String, Int, String)] = [
            ("(a", 0, "unmatched '('"),
            ("a)", 1, "unmatched ')'"),
            ("[ab", 0, "unmatched '['"),
            ("*a", 0, "has nothing to repeat"),
            ("a**", 2, "cannot be repeated directly"),
            ("(a)\\1", 3, "backreferences"),
            ("(?=a)", 0, "lookaround"),
            ("(?<!a)b", 0, "lookaround"),
            ("a{3,2}", 1, "below the minimum"),
            ("a{1001}", 1, "above 1000"),
            ("a{,3}", 1, "needs a number"),
            ("\\q", 0, "unknown escape"),
            ("[z-a]", 1, "out of order"),
            ("(?<a>x)(?<a>y)", 10, "used twice"),
            ("^*", 1, "anchor cannot be repeated"),
            ("a++", 2, "possessive"),
            ("((a{1000}){1000})", 0, "too large"),
        ]
        for (pattern, offset, reason) in cases {
            do {
                _ = try LinearRegex(pattern)
                Issue.record("\(pattern) was accepted")
            } catch {
                #expect(error.offset == offset, "\(pattern): \(error)")
                #expect(error.reason.contains(reason), "\(pattern): \(error)")
            }
        }
        #expect(throws: RegexSyntaxError.self) { try LinearRegex(String(repeating: "a", count: 4097)) }
    }

    /// Patterns that make backtracking engines take exponential time finish
    /// here; a regression would hang until the time limit fails the test.
    @Test(.timeLimit(.minutes(1))) func pathologicalPatternsStayLinear() throws {
        let long = "https://example.com/" + String(repeating: "a", count: 20_000) + "!"
        for pattern in ["^(a+)+$", "^(a|a)*$", "^(a*)*$", "(a|aa)+$", "^(\\w+\\s?)*$", "(.*a){12}$"] {
            #expect(try LinearRegex(pattern).firstMatch(in: long) == nil, "\(pattern)")
        }
    }

    /// A search that would exceed its step budget is abandoned, and says so.
    @Test func theStepBudgetBoundsEverySearch() throws {
        let long = String(repeating: "a", count: 32 * 1024) + "!"
        // Spending the default budget takes seconds in a debug build: a
        // smaller one shows the same cut-off.
        let heavy = try LinearRegex("(.*a){300}$")
        #expect(heavy.search(long, budget: 500_000) == .tooCostly)
        #expect(heavy.search(String(repeating: "a", count: 400)) != .tooCostly)
        #expect(try LinearRegex("(a+)+$").search(long) == .noMatch)
        #expect(try LinearRegex("a+!").search(long, budget: 100) == .tooCostly)
        guard case .match(let match) = try LinearRegex("a+!").search(long) else { Issue.record("no match"); return }
        #expect(match.range == 0..<(32 * 1024 + 1))
    }

    /// Our engine against Python's `re` (a backtracking engine with the same
    /// leftmost-first semantics) on patterns both support: group 0 and every
    /// capture must agree.
    @Test func agreesWithPythonsRe() throws {
        let patterns = [
            "a|ab", "(a|ab)(c|bcd)", "(a*)(b?)(b+)", "((a)|b)+", "(a+?)(a*)", "x(y|z)*?z", "([a-c]*)(c)",
            "(\\w+)@(\\w+)\\.com", "^(https?)://([^/?#]+)([^?#]*)(\\?[^#]*)?(#.*)?$", "(?:ab)+(b)?",
            "(\\d{1,3})\\.(\\d{1,3})", "(.*)/(.*)", "(.*?)/(.*)", "\\b(\\w)(\\w*)\\b", "(a?){3}a{3}",
        ]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abc/.@:1?#xyz ")
        var lines: [String] = []
        var cases: [(String, String)] = []
        for pattern in patterns {
            for _ in 0..<25 {
                let text = String((0..<Int.random(in: 0...14, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
                cases.append((pattern, text))
            }
        }
        cases += [("^(https?)://([^/?#]+)([^?#]*)(\\?[^#]*)?(#.*)?$", "https://a.b/c/d?x=1#f"), ("(\\w+)@(\\w+)\\.com", "me@mail.com")]
        for (pattern, text) in cases {
            lines.append(try String(data: JSONSerialization.data(withJSONObject: [pattern, text]), encoding: .utf8)!)
        }
        let script = """
            import json, re, sys
            for line in sys.stdin:
                p, t = json.loads(line)
                m = re.search(p, t)
                print(json.dumps(None if m is None else [m.group(i) for i in range(m.re.groups + 1)]))
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        python.standardInput = input
        python.standardOutput = output
        try python.run()
        input.fileHandleForWriting.write(lines.joined(separator: "\n").data(using: .utf8)! + Data("\n".utf8))
        try input.fileHandleForWriting.close()
        let answers = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n")
        python.waitUntilExit()
        try #require(answers.count == cases.count)
        for ((pattern, text), answer) in zip(cases, answers) {
            let regex = try LinearRegex(pattern)
            let ours: [String?]? = regex.firstMatch(in: text).map { match in (0...regex.captureCount).map { match[$0] } }
            let theirs = try JSONSerialization.jsonObject(with: Data(answer.utf8), options: .fragmentsAllowed) as? [Any]
            let theirGroups: [String?]? = theirs.map { $0.map { $0 as? String } }
            #expect(ours == theirGroups, "\(pattern) on '\(text)'")
        }
    }
}
