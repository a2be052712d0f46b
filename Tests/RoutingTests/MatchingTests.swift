import Testing

@testable import Routing

@Suite struct MatchingTests {
    static let hostCases: [(String, String, Bool)] = [
        ("example.com", "https://example.com/", true),
        ("example.com", "https://EXAMPLE.com/", true),
        ("Example.Com", "https://example.com/", true),
        ("example.com", "https://www.example.com/", false),
        ("*.example.com", "https://www.example.com/", true),
        ("*.example.com", "https://a.b.example.com/", true),
        ("*.example.com", "https://example.com/", false),
        ("*.example.com", "https://badexample.com/", false),
        ("*.example.com", "https://example.com.evil.net/", false),
        ("example.com", "https://example.com:8080/", true),
        ("a", "http://a\\@b/", true),
        ("b", "http://a\\@b/", false),
        ("a", "https://b%2F@a", true),
        ("b", "https://b%2F@a", false),
        ("[::1]", "http://[::1]:80/", true),
        ("::1", "http://[::1]/", true),
        ("example.com", "mailto:x@example.com", false),
        // An invalid xn-- label is a host browsers go to (whatwg/url#914): a block covers it.
        ("*.evil.example", "https://xn--a.evil.example/", true),
        ("*.evil.example", "https://XN--A.EVIL.EXAMPLE./", true),
    ]

    @Test(arguments: hostCases + browserSpellings)
    func hostPatterns(_ pattern: String, _ url: String, _ expected: Bool) throws {
        let url = try ValidatedURL(url)
        #expect(try HostPattern(pattern).matches(url.host, port: url.port) == expected)
    }

    /// Spellings of a blocked host that a browser still goes to, and ports in
    /// patterns: each must match like the plain form (run by `hostPatterns`).
    static let browserSpellings: [(String, String, Bool)] = [
        ("ad.doubleclick.net", "https://ad.doubleclick.net./", true),
        // A combining mark after a delimiter does not hide it: the URL is
        // read by code points, as browsers read it, not by Characters.
        ("a.example", "https://a.example/\u{301}@b.example/", true),
        ("b.example", "https://a.example/\u{301}@b.example/", false),
        ("b.example", "https://b.example?\u{301}@evil.example", true),
        ("evil.example", "https://b.example?\u{301}@evil.example", false),
        ("b.example", "https://b.example#\u{301}@evil.example", true),
        ("ad.doubleclick.net", "https://ad.doubleclick.net%2E/", true),
        ("*.doubleclick.net", "https://ad.doubleclick.net./x", true),
        ("ad.doubleclick.net.", "https://ad.doubleclick.net/", true),
        ("bücher.example", "https://xn--bcher-kva.example/", true),
        ("bücher.example", "https://XN--BCHER-KVA.example/", true),
        ("xn--bcher-kva.example", "https://bu\u{0308}cher.example/", true),
        ("xn--bcher-kva.example", "https://BÜCHER.example/", true),
        ("xn--bcher-kva.example", "https://bu%CC%88cher.example/", true),
        ("example.com", "https://example\u{3002}com/", true),
        ("example.com", "https://example\u{FF0E}com/", true),
        ("example.com", "https://\u{FF45}xample.com/", true),
        ("example.com", "https://exa\u{00AD}mple.com/", true),
        ("example.com", "https://exa%C2%ADmple.com/", true),
        ("127.0.0.1", "http://0x7f.1/", true),
        ("127.0.0.1", "http://2130706433/", true),
        ("127.0.0.1", "http://127.1/", true),
        ("127.0.0.1", "http://0177.0.0.1/", true),
        ("127.0.0.1", "http://0x7F.0.0.1./", true),
        ("127.1", "http://127.0.0.1/", true),
        ("[::1]", "http://[0:0:0:0:0:0:0:1]/", true),
        ("[::ffff:1.2.3.4]", "http://[::ffff:102:304]/", true),
        ("example.com", "https://example.com.evil.net./", false),
        ("example.com", "https://example.co/", false),
        ("localhost:3000", "http://localhost:3000/", true),
        ("localhost:3000", "http://LOCALHOST:03000/app", true),
        ("localhost:3000", "http://localhost:3001/", false),
        ("localhost:3000", "http://localhost/", false),
        ("example.com:443", "https://example.com/", true),
        ("example.com:443", "http://example.com/", false),
        ("*.example.com:8443", "https://a.example.com:8443/", true),
        ("[::1]:8080", "http://[::1]:8080/", true),
        ("[::1]:8080", "http://[::1]/", false),
    ]

    static let refusedPatterns = ["localhost:", "localhost:99999", "localhost:x", "*.127.0.0.1", "exa%mple.com", "*.[::1]", "a%2Fb"]

    @Test(arguments: refusedPatterns)
    func patternsNoBrowserHostCouldMatchAreRefused(_ pattern: String) {
        #expect(throws: RoutingError.self) { try HostPattern(pattern) }
    }

    @Test func theForwardedURLKeepsItsBytes() throws {
        let url = try ValidatedURL("https://EXA\u{00AD}mple.com./P")
        #expect(url.text == "https://EXA\u{00AD}mple.com./P")
        #expect(url.host == .name("example.com"))
    }

    @Test(arguments: [("https://intranet.example", true), ("https://intranet.example?tab=news", true),
                      ("https://intranet.example#top", true), ("https://intranet.example/x", false), ("mailto:a@b", false)])
    func anEmptyPathIsTheRoot(_ url: String, _ expected: Bool) throws {
        #expect(try PathGlob("/").matches(ValidatedURL(url).path) == expected)
    }

    static let globCases: [(String, String, Bool)] = [
        ("/a", "/a", true), ("/a", "/a/", false), ("/a", "/ab", false),
        ("/*", "/abc", true), ("/*", "/a/b", false), ("/*", "/", true),
        ("/**", "/a/b/c", true), ("/**", "/", true), ("**", "", true), ("*", "", true),
        ("/a/*/c", "/a/b/c", true), ("/a/*/c", "/a/b/x/c", false), ("/a/**/c", "/a/b/x/c", true),
        ("/a/**/c", "/a/c", false), ("/a/**c", "/a/c", true), ("/*.pdf", "/x.pdf", true),
        ("/*.pdf", "/d/x.pdf", false), ("/**.pdf", "/d/x.pdf", true), ("/a***b", "/a/x/b", true),
        ("/j/*", "/j/123?x", true), ("/%20", "/%20", true), ("/%20", "/ ", false),
        ("*a*a*a*a*a*a*a*a*b", String(repeating: "a", count: 5000), false),
        ("**a**a**a**a**a**a**b", String(repeating: "a", count: 5000), false),
    ]

    @Test(arguments: globCases)
    func pathGlobs(_ pattern: String, _ path: String, _ expected: Bool) throws {
        #expect(try PathGlob(pattern).matches(path) == expected)
    }

    static let badSpecs: [(HandlerSpecInput, String)] = [
        (HandlerSpecInput(schemes: []), "schemes must not be empty"),
        (HandlerSpecInput(schemes: ["1x"]), "'1x' is not a valid scheme"),
        (HandlerSpecInput(schemes: ["*", "http"]), "'*' matches every scheme and cannot be combined with others"),
        (HandlerSpecInput(schemes: ["http"], hosts: [""]), "host pattern '' is empty"),
        (HandlerSpecInput(schemes: ["http"], hosts: ["a.*.com"]), "host pattern 'a.*.com' may only use '*' as its whole first label ('*.example.com')"),
        (HandlerSpecInput(schemes: ["http"], hosts: ["*"]), "host pattern '*' may only use '*' as its whole first label ('*.example.com')"),
        (HandlerSpecInput(schemes: ["http"], hosts: ["a/b"]), "host pattern 'a/b' contains a character hosts cannot have"),
        (HandlerSpecInput(schemes: ["http"], paths: [""]), "path pattern is empty"),
    ]

    @Test(arguments: badSpecs)
    func invalidSpecsAreRefused(_ input: HandlerSpecInput, _ reason: String) {
        #expect(throws: RoutingError(.invalidSpec, reason)) {
            try HandlerSpec(schemes: input.schemes, hosts: input.hosts, paths: input.paths)
        }
    }

    @Test func schemesAreCaseInsensitive() throws {
        let spec = try HandlerSpec(schemes: ["HTTPS"])
        #expect(spec.matches(try ValidatedURL("https://x")))
        #expect(spec.matches(try ValidatedURL("HTTPS://x")))
        #expect(!spec.matches(try ValidatedURL("http://x")))
        #expect(try HandlerSpec(schemes: ["*"]).matches(try ValidatedURL("zoommtg://x")))
    }
}

struct HandlerSpecInput: Sendable, CustomStringConvertible {
    var schemes: [String]
    var hosts: [String] = []
    var paths: [String] = []
    var description: String { "schemes \(schemes) hosts \(hosts) paths \(paths)" }
}
