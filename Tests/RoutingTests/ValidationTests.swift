import Testing

@testable import Routing

@Suite struct ValidationTests {
    /// Valid inputs and the text forwarded for them.
    static let valid: [(String, String)] = [
        ("https://example.com", "https://example.com"),
        ("HTTP://X", "http://X"),
        ("HtTpS://Example.COM/Path?Q=1#F", "https://Example.COM/Path?Q=1#F"),
        ("git+ssh://h/p", "git+ssh://h/p"),
        ("mailto:someone@example.com", "mailto:someone@example.com"),
        ("tel:+15550109999", "tel:+15550109999"),
        ("zoommtg://zoom.us/join?confno=1", "zoommtg://zoom.us/join?confno=1"),
        ("urn:isbn:0451450523", "urn:isbn:0451450523"),
        ("a:", "a:"),
        ("x-y.z+w:rest", "x-y.z+w:rest"),
        ("http://[::1]:80/", "http://[::1]:80/"),
        ("http://[2001:DB8::1]/", "http://[2001:DB8::1]/"),
        ("http://user:p%40ss@host/", "http://user:p%40ss@host/"),
        ("https://b%2F@a", "https://b%2F@a"),
        ("https://例え.jp/パス", "https://例え.jp/パス"),
        ("https://example.com/%20space", "https://example.com/%20space"),
        ("https://example.com/$(id)`x`;|&'\"", "https://example.com/$(id)`x`;|&'\""),
        ("file:///etc/passwd", "file:///etc/passwd"),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("data:text/html,<b>", "data:text/html,<b>"),
        ("https://e.com/" + String(repeating: "a", count: 32 * 1024 - 14), "https://e.com/" + String(repeating: "a", count: 32 * 1024 - 14)),
        ("https://نص.example/\u{200D}", "https://نص.example/\u{200D}"),
    ]

    /// A URL is its text: equal texts are equal URLs (a rewrite to the same
    /// text is no rewrite), whatever the parts they share.
    @Test func urlsAreEqualExactlyWhenTheirTextsAre() throws {
        #expect(try ValidatedURL("HTTPS://example.com/a") == ValidatedURL("https://example.com/a"))
        #expect(try ValidatedURL("https://example.com") != ValidatedURL("https://example.com/"))
        #expect(try ValidatedURL("https://Example.com/") != ValidatedURL("https://example.com/"))
        #expect(Set([try ValidatedURL("HTTPS://a/"), try ValidatedURL("https://a/"), try ValidatedURL("https://b/")]).count == 2)
    }

    @Test(arguments: valid)
    func acceptsAndForwardsUnchanged(_ input: String, _ forwarded: String) throws {
        let url = try ValidatedURL(input)
        #expect(url.text == forwarded)
        #expect(url.text.utf8.count == input.utf8.count)
        #expect(url.scheme == String(forwarded.prefix { $0 != ":" }))
    }

    /// Invalid inputs and the reason given.
    static let invalid: [(String, String)] = [
        ("", "URL is empty"),
        ("example.com", "URL has no scheme (expected something like 'https:')"),
        ("example.com/a:b", "URL has no scheme (expected something like 'https:')"),
        ("//example.com", "URL has no scheme (expected something like 'https:')"),
        (":foo", "URL has an empty scheme"),
        ("1http://x", "URL scheme must start with a letter"),
        ("+x:y", "URL scheme must start with a letter"),
        ("-oProxyCommand=x", "URL has no scheme (expected something like 'https:')"),
        ("--gpu-launcher=x", "URL has no scheme (expected something like 'https:')"),
        ("--help", "URL has no scheme (expected something like 'https:')"),
        ("ht tp://x", "URL contains whitespace at offset 2"),
        ("http://x/\u{0}y", "URL contains a control character at offset 9"),
        ("http://x/\ny", "URL contains a control character at offset 9"),
        ("http://x/\ry", "URL contains a control character at offset 9"),
        ("http://x/\u{1B}[31m", "URL contains a control character at offset 9"),
        ("http://x/\u{7F}", "URL contains a control character at offset 9"),
        ("http://x/\u{85}", "URL contains a control character at offset 9"),
        ("http://x/ y", "URL contains whitespace at offset 9"),
        ("http://x/\t", "URL contains a control character at offset 9"),
        ("http://x/\u{A0}", "URL contains whitespace at offset 9"),
        ("http://x/\u{2028}", "URL contains whitespace at offset 9"),
        ("http://x/\u{3000}", "URL contains whitespace at offset 9"),
        (" http://x", "URL contains whitespace at offset 0"),
        ("http://x ", "URL contains whitespace at offset 8"),
        ("http://exe.\u{202E}gpj", "URL contains a bidirectional control character at offset 11"),
        ("http://x/\u{202A}", "URL contains a bidirectional control character at offset 9"),
        ("http://x/\u{2066}", "URL contains a bidirectional control character at offset 9"),
        ("http://x/\u{2069}", "URL contains a bidirectional control character at offset 9"),
        ("http://x/\u{200E}", "URL contains a bidirectional control character at offset 9"),
        ("http://é/\u{200B}", "URL contains an invisible character at offset 10"),
        ("http://x/\u{FEFF}", "URL contains an invisible character at offset 9"),
        ("http://x/\u{2060}", "URL contains an invisible character at offset 9"),
        ("https://e.com/" + String(repeating: "a", count: 32 * 1024 - 13), "URL is 32769 bytes long; the limit is 32768"),
        (String(repeating: "a", count: 10_000_000), "URL is 10000000 bytes long; the limit is 32768"),
        ("https:" + String(repeating: "a", count: 10_000_000), "URL is 10000006 bytes long; the limit is 32768"),
    ]

    @Test(arguments: invalid)
    func rejectsWithAReason(_ input: String, _ reason: String) {
        #expect(throws: RoutingError(.invalidURL, reason)) { try ValidatedURL(input) }
    }

    @Test func lengthLimitIsExact() throws {
        let atLimit = "https://e.com/" + String(repeating: "a", count: ValidatedURL.maximumLength - 14)
        #expect(atLimit.utf8.count == ValidatedURL.maximumLength)
        _ = try ValidatedURL(atLimit)
        #expect(throws: RoutingError.self) { try ValidatedURL(atLimit + "a") }
    }

    /// Hosts as the opening application will see them.
    static let hosts: [(String, URLHost?)] = [
        ("https://Example.COM/x", .name("example.com")),
        ("https://example.com:8443/x", .name("example.com")),
        ("https://user@example.com", .name("example.com")),
        ("https://user:pw@example.com:1", .name("example.com")),
        ("http://a@b", .name("b")),
        ("https://b%2F@a", .name("a")),
        ("http://a\\@b", .name("a")),  // browsers read '\' as '/'
        ("http:/\\b", .name("b")),
        ("http:example.com", .name("example.com")),
        ("http://[::1]:80", .ipv6("::1")),
        ("http://[2001:DB8::1]/", .ipv6("2001:db8::1")),
        ("http://ex%61mple.com/", .name("example.com")),
        ("http://例え.jp/", .name("xn--r8jz45g.jp")),
        // The URL Standard since June 2026 (whatwg/url#914): an ASCII domain
        // is lowercased, whatever Unicode ToASCII says of its `xn--` labels.
        ("https://xn--a.evil.example/", .name("xn--a.evil.example")),
        ("https://XN--A.Evil.Example/", .name("xn--a.evil.example")),
        ("https://2.xn--mgbb/", .name("2.xn--mgbb")),
        ("https://xn--8i7caa/", .name("xn--8i7caa")),
        ("foo://a%2Fb/", .invalid),  // not special: matches no pattern, but may be opened
        ("http:///x", .name("x")),  // browsers skip any run of slashes
        ("mailto:a@b.example", nil),
        ("foo://a\\@b/", .name("b")),  // not special: '\' is just a character
        ("foo:/x", nil),
        ("file:///etc/passwd", nil),
        ("ssh://git@github.com:22/x", .name("github.com")),
    ]

    @Test(arguments: hosts)
    func extractsHosts(_ input: String, _ host: URLHost?) throws {
        #expect(try ValidatedURL(input).host == host)
    }

    /// Fail closed: a web URL whose host cannot be read as a browser reads
    /// it, or that has none, is invalid, never passed to a browser that may
    /// read it otherwise (issue 24, item 3).
    @Test(arguments: [
        ("http://[::1", "an IPv6 address lacks its closing ']'"), ("http://[::1]x/", "closing"),
        ("http://a%2Fb/", "U+002F"), ("http://a%zz/", "U+0025"), ("http://host:port/", "port"),
        ("https://exa mple.com/", "whitespace"), ("http:", "need a host"), ("https:?q", "need a host"),
        ("ws://a%00b/", "U+0000"), ("ftp://[1::2::3]/", "IPv6"),
    ])
    func webURLsWithUnreadableHostsAreInvalid(_ input: String, _ reason: String) {
        let error = #expect(throws: RoutingError.self) { try ValidatedURL(input) }
        #expect(error?.code == .invalidURL)
        #expect(error?.message.contains(reason) == true, "\(input): \(String(describing: error?.message))")
    }

    static let paths: [(String, String)] = [
        // No path after a host is the root, as browsers read it.
        ("https://e.com/a/b?q#f", "/a/b"), ("https://e.com", "/"), ("https://e.com?x", "/"),
        ("mailto:a@b.c?subject=x", "a@b.c"), ("urn:isbn:1", "isbn:1"), ("http://a\\b\\c", "\\b\\c"),
    ]

    @Test(arguments: paths)
    func extractsPaths(_ input: String, _ path: String) throws {
        #expect(try ValidatedURL(input).path == path)
    }
}
