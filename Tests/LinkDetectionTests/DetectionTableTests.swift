import LinkDetection
import Testing

/// The detector's behaviour, case by case. Each expectation reads
/// `kind: covered text -> url` (`-> url` left out when the URL is the
/// covered text itself); the covered text is checked through the UTF-8
/// range the detector reports.
struct DetectionTableTests {
    static let cases: [(String, [String])] = [
        // URLs with a scheme
        ("https://example.com", ["web: https://example.com"]),
        ("http://example.com/a/b?c=d&e=f#g", ["web: http://example.com/a/b?c=d&e=f#g"]),
        ("HTTPS://EXAMPLE.COM/PATH", ["web: HTTPS://EXAMPLE.COM/PATH"]),
        ("ftp://ftp.example.org/pub/file.tar.gz", ["web: ftp://ftp.example.org/pub/file.tar.gz"]),
        ("go to https://example.com.", ["web: https://example.com"]),
        ("go to https://example.com!", ["web: https://example.com"]),
        ("is it https://example.com?", ["web: https://example.com"]),
        ("see https://example.com/a?b=c.", ["web: https://example.com/a?b=c"]),
        ("https://example.com/..., and more", ["web: https://example.com/"]),
        ("https://example.com/a;b", ["web: https://example.com/a;b"]),
        ("https://example.com/a;", ["web: https://example.com/a"]),
        ("https://example.com/a:", ["web: https://example.com/a"]),
        ("https://example.com/a…", ["web: https://example.com/a"]),
        ("https://example.com/*", ["web: https://example.com/"]),
        ("**https://example.com/bold**", ["web: https://example.com/bold"]),
        ("(see https://en.wikipedia.org/wiki/Swift_(programming_language)).", ["web: https://en.wikipedia.org/wiki/Swift_(programming_language)"]),
        ("(https://example.com/a)", ["web: https://example.com/a"]),
        ("(https://example.com/a_(b)_c)", ["web: https://example.com/a_(b)_c"]),
        ("[https://example.com/a]", ["web: https://example.com/a"]),
        ("https://example.com/a[1]", ["web: https://example.com/a[1]"]),
        ("'https://example.com/x'", ["web: https://example.com/x"]),
        ("\"https://example.com/x\"", ["web: https://example.com/x"]),
        ("“https://example.com/x”", ["web: https://example.com/x"]),
        ("«https://example.com/x»", ["web: https://example.com/x"]),
        ("<https://example.com/x>", ["web: https://example.com/x"]),
        ("`https://example.com/x`", ["web: https://example.com/x"]),
        ("{https://example.com/x}", ["web: https://example.com/x"]),
        ("https://example.com/it's", ["web: https://example.com/it's"]),
        ("a https://example.com/a b https://example.org/b", ["web: https://example.com/a", "web: https://example.org/b"]),
        ("https://example.com/a,https://example.org/b", ["web: https://example.com/a,https://example.org/b"]),
        ("https://example.com/%E2%82%AC?q=%20", ["web: https://example.com/%E2%82%AC?q=%20"]),
        ("https://example.com/a|b", ["web: https://example.com/a"]),
        ("https://example.com/a\\b", ["web: https://example.com/a"]),
        ("https://example.com/a\u{202E}b", ["web: https://example.com/a"]),
        ("https://example.com/a\u{200B}b", ["web: https://example.com/a"]),
        ("https://例子.测试/路径。下一句", ["web: https://例子.测试/路径"]),
        ("https://münchen.de/straße", ["web: https://münchen.de/straße"]),
        ("https://xn--mnchen-3ya.de/", ["web: https://xn--mnchen-3ya.de/"]),
        ("https://example.com/путь?q=значение", ["web: https://example.com/путь?q=значение"]),
        ("http://[::1]:8080/path", ["web: http://[::1]:8080/path"]),
        ("http://[2001:db8::1]/", ["web: http://[2001:db8::1]/"]),
        // A zone ID is no part of a URL's host (the URL Standard, and so the
        // dispatcher and browsers, refuse it): nothing the dispatcher refuses is found.
        ("https://[fe80::1%25eth0]:443/", []),
        ("http://localhost:3000/api", ["web: http://localhost:3000/api"]),
        ("http://127.0.0.1:8000", ["web: http://127.0.0.1:8000"]),
        ("http://192.168.1.1/admin", ["web: http://192.168.1.1/admin"]),
        ("https://user:secret@example.com:8443/x", ["web: https://user:secret@example.com:8443/x"]),
        ("https://user@example.com", ["web: https://user@example.com"]),
        ("https://example.com:8080", ["web: https://example.com:8080"]),
        ("http://", []),
        ("http:// example.com", ["web: example.com -> https://example.com"]),
        ("https://.", []),
        ("http:/example.com", []),
        ("zoommtg://zoom.us/join?confno=123&pwd=x", ["other: zoommtg://zoom.us/join?confno=123&pwd=x"]),
        ("msteams:/l/meetup-join/19%3ameeting", ["other: msteams:/l/meetup-join/19%3ameeting"]),
        ("ssh://git@example.com:22/repo.git", ["other: ssh://git@example.com:22/repo.git"]),
        ("file:///etc/hosts", ["other: file:///etc/hosts"]),
        ("magnet:?xt=urn:btih:abc123&dn=file", ["other: magnet:?xt=urn:btih:abc123&dn=file"]),
        ("irc://irc.libera.chat/#swift", ["other: irc://irc.libera.chat/#swift"]),
        ("spotify://track/123", ["other: spotify://track/123"]),
        ("steam://run/440", ["other: steam://run/440"]),
        ("vscode://file/home/me/a.swift:10", ["other: vscode://file/home/me/a.swift:10"]),
        ("geo:37.786971,-122.399677", ["other: geo:37.786971,-122.399677"]),
        ("sip:alice@example.com", ["other: sip:alice@example.com"]),
        ("xmpp:romeo@example.net", ["other: xmpp:romeo@example.net"]),
        ("javascript:alert(1)", []),
        ("data:text/html,<script>", []),
        ("vbscript:msgbox", []),
        ("Note: this is it", []),
        ("Re: hello", []),
        ("TODO: fix", []),
        ("at 10:30", []),
        ("C:\\Windows\\System32", []),
        ("c://x", []),
        ("std::vector<int>", []),
        ("foo:bar", []),
        ("see:https://example.com", ["web: https://example.com"]),
        ("xhttps://example.com", ["other: xhttps://example.com"]),
        ("mailto:jane@example.com", ["email: mailto:jane@example.com"]),
        ("mailto:jane@example.com?subject=Hi%20there&body=x", ["email: mailto:jane@example.com?subject=Hi%20there&body=x"]),
        ("tel:+1-555-010-9999", ["phone: tel:+1-555-010-9999"]),
        ("sms:+15550109999", ["phone: sms:+15550109999"]),
        // Markdown
        ("[the docs](https://example.com/docs)", ["web: [the docs](https://example.com/docs) -> https://example.com/docs"]),
        ("see [x](https://example.com/a_(b)) now", ["web: [x](https://example.com/a_(b)) -> https://example.com/a_(b)"]),
        ("[x](https://example.com \"Title\")", ["web: [x](https://example.com \"Title\") -> https://example.com"]),
        ("[x](<https://example.com/a b>)", ["web: https://example.com/a"]),
        ("[x](<https://example.com/ab>)", ["web: [x](<https://example.com/ab>) -> https://example.com/ab"]),
        ("![logo](https://example.com/logo.png)", ["web: ![logo](https://example.com/logo.png) -> https://example.com/logo.png"]),
        ("[mail me](mailto:me@example.com)", ["email: [mail me](mailto:me@example.com) -> mailto:me@example.com"]),
        ("[site](example.com)", ["web: [site](example.com) -> https://example.com"]),
        ("[me](me@example.com)", ["email: [me](me@example.com) -> mailto:me@example.com"]),
        ("[relative](./docs/a.md)", []),
        ("[anchor](#section)", []),
        ("[https://a.example](https://b.example)", ["web: [https://a.example](https://b.example) -> https://b.example"]),
        ("[a [nested] text](https://example.com)", ["web: [a [nested] text](https://example.com) -> https://example.com"]),
        ("[a](https://a.example) and [b](https://b.example)", ["web: [a](https://a.example) -> https://a.example", "web: [b](https://b.example) -> https://b.example"]),
        ("[not closed](https://example.com", ["web: https://example.com"]),
        ("[text] (https://example.com)", ["web: https://example.com"]),
        // HTML-ish text
        ("<a href=\"https://example.com/a\">link</a>", ["web: https://example.com/a"]),
        ("<a href='https://example.com/a'>link</a>", ["web: https://example.com/a"]),
        ("<img src=https://example.com/i.png>", ["web: https://example.com/i.png"]),
        ("<p>Visit www.example.com</p>", ["web: www.example.com -> https://www.example.com"]),
        ("&lt;https://example.com&gt;", ["web: https://example.com"]),
        ("&quot;https://example.com/a&quot;", ["web: https://example.com/a"]),
        ("https://example.com/?a=1&amp;b=2", ["web: https://example.com/?a=1&amp;b=2"]),
        // Bare web addresses
        ("www.example.com", ["web: www.example.com -> https://www.example.com"]),
        ("visit example.com today", ["web: example.com -> https://example.com"]),
        ("example.org/path/to?x=1#f", ["web: example.org/path/to?x=1#f -> https://example.org/path/to?x=1#f"]),
        ("Example.COM", ["web: Example.COM -> https://Example.COM"]),
        ("EXAMPLE.COM", ["web: EXAMPLE.COM -> https://EXAMPLE.COM"]),
        ("sub.domain.example.co.uk/x", ["web: sub.domain.example.co.uk/x -> https://sub.domain.example.co.uk/x"]),
        ("example.com:8080/x", ["web: example.com:8080/x -> https://example.com:8080/x"]),
        ("example.com.", ["web: example.com -> https://example.com"]),
        ("(example.com)", ["web: example.com -> https://example.com"]),
        ("example.com/a).", ["web: example.com/a -> https://example.com/a"]),
        ("github.io and example.dev and example.app", ["web: github.io -> https://github.io", "web: example.dev -> https://example.dev", "web: example.app -> https://example.app"]),
        ("bücher.de", ["web: bücher.de -> https://bücher.de"]),
        ("пример.рф/путь", ["web: пример.рф/путь -> https://пример.рф/путь"]),
        ("例子.中国", ["web: 例子.中国 -> https://例子.中国"]),
        ("example.notatld", []),
        ("example.c", []),
        ("done.Next time", []),
        ("end of sentence.The next", []),
        ("README.md", []),
        ("setup.py and main.rs and run.sh and a.zip", []),
        ("docs/README.md", []),
        ("www.example.md", ["web: www.example.md -> https://www.example.md"]),
        ("example.md/page", ["web: example.md/page -> https://example.md/page"]),
        ("foo.bar.md", ["web: foo.bar.md -> https://foo.bar.md"]),
        ("node.js and vue.js", []),
        ("a.b", []),
        ("e.g. this", []),
        ("i.e. that", []),
        ("3.14 and 1.5.2", []),
        ("v2.10.0", []),
        ("example.com_bar", []),
        ("-example.com", []),
        ("~/.config/example.com", []),
        ("/var/www/example.com/index", []),
        ("C:\\sites\\example.com", []),
        ("$example.com", []),
        ("#example.com", []),
        ("user.name@", []),
        // E-mail addresses
        ("jane@example.com", ["email: jane@example.com -> mailto:jane@example.com"]),
        ("Jane.Doe+tag@mail.example.co.uk.", ["email: Jane.Doe+tag@mail.example.co.uk -> mailto:Jane.Doe+tag@mail.example.co.uk"]),
        ("<jane@example.com>", ["email: jane@example.com -> mailto:jane@example.com"]),
        ("(jane@example.com)", ["email: jane@example.com -> mailto:jane@example.com"]),
        ("jane@example.com, john@example.org", ["email: jane@example.com -> mailto:jane@example.com", "email: john@example.org -> mailto:john@example.org"]),
        ("jane@example.com https://example.com", ["email: jane@example.com -> mailto:jane@example.com", "web: https://example.com"]),
        ("jane@example.com/https://example.com", ["email: jane@example.com -> mailto:jane@example.com", "web: https://example.com"]),
        ("müller@bücher.de", ["email: müller@bücher.de -> mailto:müller@bücher.de"]),
        ("first_last-1%x@example.com", ["email: first_last-1%x@example.com -> mailto:first_last-1%x@example.com"]),
        ("jane@localhost", []),
        ("jane@example", []),
        ("@example.com", []),
        ("jane@@example.com", []),
        (".jane@example.com", ["email: jane@example.com -> mailto:jane@example.com"]),
        ("jane.@example.com", []),
        ("git@github.com:owner/repo.git", []),
        ("email jane@example.com: thanks", ["email: jane@example.com -> mailto:jane@example.com"]),
        ("@jane on social", []),
        ("jane@example.com.au", ["email: jane@example.com.au -> mailto:jane@example.com.au"]),
        ("https://example.com/user@host", ["web: https://example.com/user@host"]),
        ("npm i @scope/pkg@1.2.3", []),
        // Phone numbers
        ("+1 (555) 010-9999", ["phone: +1 (555) 010-9999 -> tel:+15550109999"]),
        ("call +1 555 010 9999.", ["phone: +1 555 010 9999 -> tel:+15550109999"]),
        ("+44 20 7946 0958", ["phone: +44 20 7946 0958 -> tel:+442079460958"]),
        ("+49 30 1234567", ["phone: +49 30 1234567 -> tel:+49301234567"]),
        ("+4930123456", ["phone: +4930123456 -> tel:+4930123456"]),
        ("+33 1 23 45 67 89", ["phone: +33 1 23 45 67 89 -> tel:+33123456789"]),
        ("+81-3-1234-5678", ["phone: +81-3-1234-5678 -> tel:+81312345678"]),
        ("(555) 010-9999", ["phone: (555) 010-9999 -> tel:5550109999"]),
        ("555-010-9999", ["phone: 555-010-9999 -> tel:5550109999"]),
        ("555.010.9999", ["phone: 555.010.9999 -> tel:5550109999"]),
        ("555 010 9999", ["phone: 555 010 9999 -> tel:5550109999"]),
        ("1-800-555-0199", ["phone: 1-800-555-0199 -> tel:18005550199"]),
        ("020 7946 0958", ["phone: 020 7946 0958 -> tel:02079460958"]),
        ("030 1234567", ["phone: 030 1234567 -> tel:0301234567"]),
        ("01 23 45 67 89", ["phone: 01 23 45 67 89 -> tel:0123456789"]),
        ("call (555) 010-9999, ext. 12", ["phone: (555) 010-9999 -> tel:5550109999"]),
        ("Tel.: +41 44 668 18 00", ["phone: +41 44 668 18 00 -> tel:+41446681800"]),
        ("+1\u{00A0}555\u{00A0}010\u{00A0}9999", ["phone: +1\u{00A0}555\u{00A0}010\u{00A0}9999 -> tel:+15550109999"]),
        ("5550109999", []),
        ("555-0199", []),
        ("+123", []),
        ("+1234567890123456", []),
        ("2024-01-15", []),
        ("15.01.2024", []),
        ("01/15/2024", []),
        ("2019 2020 2021", []),
        ("100 200 300 400", []),
        ("v1.2.3", []),
        ("1.2.3.4", []),
        ("192.168.100.200", []),
        ("10.0.0.1:8080", []),
        ("$1,234,567.89", []),
        ("€ 1.234.567,89", []),
        ("1,234,567", []),
        ("ISBN 978-3-16-148410-0", []),
        ("4111 1111 1111 1111", []),
        ("12:30:45", []),
        ("50%", []),
        ("order #5550109999", []),
        ("id=555-010-9999", []),
        ("555-010-9999x", []),
        ("555-010-99990", []),
        ("3.5550109999", []),
        ("(555) 010-9999 and +44 20 7946 0958", ["phone: (555) 010-9999 -> tel:5550109999", "phone: +44 20 7946 0958 -> tel:+442079460958"]),
        // Never a link to another site than the text names (issue 26)
        ("http://✪df.ws/123", []),
        ("https://★example.com/x", []),
        ("http://-example.com/", []),
        ("http://leadingdash.-twitter.com", []),
        ("http://trailingdash-.twitter.com", []),
        ("http://twitter.c_o_m", []),
        ("http://_twitter.com", []),
        ("http://example.com_/x", []),
        ("test.\"foo\".bar@gmail.co.uk", []),
        ("｜http://google.com｜bar", ["web: http://google.com"]),
        ("｜www.google.com/search/foo｜bar", ["web: www.google.com/search/foo -> https://www.google.com/search/foo"]),
        ("［https://example.com/a］", ["web: https://example.com/a"]),
        ("＜https://example.com/a＞", ["web: https://example.com/a"]),
        ("＂https://example.com/a＂", ["web: https://example.com/a"]),
        ("｛https://example.com/a｝", ["web: https://example.com/a"]),
        ("「https://example.com/a」と【example.org】", ["web: https://example.com/a", "web: example.org -> https://example.org"]),
        ("https://example.com/a、b", ["web: https://example.com/a"]),
        ("｢https://example.com/a｣", ["web: https://example.com/a"]),
        // Text without spaces: a link has exactly its own characters
        ("example.com中国語t.co/abcde", ["web: example.com -> https://example.com", "web: t.co/abcde -> https://t.co/abcde"]),
        ("twitter.comこれは日本語です。example.com", ["web: twitter.com -> https://twitter.com", "web: example.com -> https://example.com"]),
        ("t.co/abcde한국twitter.com", ["web: t.co/abcde -> https://t.co/abcde", "web: twitter.com -> https://twitter.com"]),
        ("http://twitter.com/これは日本語です", ["web: http://twitter.com/"]),
        ("詳しくはhttps://example.com/docsを参照", ["web: https://example.com/docs"]),
        ("http://example.comだよね.comtest/hogehoge", ["web: http://example.com"]),
        ("http://exampleこれは日本語です.com/path/index.html", ["web: http://exampleこれは日本語です.com/path/index.html"]),
        ("คลิกexample.comเลย", ["web: example.com -> https://example.com"]),
        ("メールはjane@example.comまで", ["email: jane@example.com -> mailto:jane@example.com"]),
        // Links the dispatcher would refuse are not found
        ("google.com:500000", []),
        ("https://example.com:99999/", []),
        ("http://xn--はじめよう.com/", []),
        ("http://example.com_", ["web: http://example.com"]),
        ("http://example.com-", ["web: http://example.com"]),
        ("https://example.com:65535/", ["web: https://example.com:65535/"]),
        ("http://my_host.example.com/", ["web: http://my_host.example.com/"]),
        // Misses people notice
        ("[![build](https://ci.example/badge.svg)](https://ci.example/job)", ["web: ![build](https://ci.example/badge.svg) -> https://ci.example/badge.svg", "web: https://ci.example/job"]),
        ("~~https://example.com~~", ["web: https://example.com"]),
        ("_https://example.com/a_", ["web: https://example.com/a"]),
        ("https://example.com/~user/", ["web: https://example.com/~user/"]),
        ("https://example.com/a_b_", ["web: https://example.com/a_b_"]),
        ("bob.o'neil@example.ie", ["email: bob.o'neil@example.ie -> mailto:bob.o'neil@example.ie"]),
        ("'jane@example.com'", ["email: jane@example.com -> mailto:jane@example.com"]),
        ("email:x@y.com", ["email: x@y.com -> mailto:x@y.com"]),
        ("E-Mail:jane@example.com", ["email: jane@example.com -> mailto:jane@example.com"]),
        ("user:jane@example.com", []),
        ("https://example.com/ന്\u{200D}റെ", ["web: https://example.com/ന്\u{200D}റെ"]),
        ("https://example.lk/ශ්\u{200D}රී", ["web: https://example.lk/ශ්\u{200D}රී"]),
        ("https://example.in/क्\u{200D}ष", ["web: https://example.in/क्\u{200D}ष"]),
        ("https://example.com/a\u{200D}b", ["web: https://example.com/a"]),
        ("https://example.com/ന\u{200D}b", ["web: https://example.com/ന"]),
        // Mixed
        ("see example.org/docs, or call +1 (555) 010-9999", ["web: example.org/docs -> https://example.org/docs", "phone: +1 (555) 010-9999 -> tel:+15550109999"]),
        ("Mail jane@example.com or visit https://example.com/a (or www.example.org).", ["email: jane@example.com -> mailto:jane@example.com", "web: https://example.com/a", "web: www.example.org -> https://www.example.org"]),
        ("", []),
        ("no links here at all", []),
    ]

    @Test func theTableHasOneHundredAndFiftyCasesOrMore() {
        #expect(Self.cases.count >= 150)
    }

    @Test(arguments: cases) func detects(_ text: String, _ expectations: [String]) {
        let links = LinkDetector().links(in: text)
        let bytes = Array(text.utf8)
        let got = links.map { link in
            let covered = String(decoding: bytes[link.offset..<(link.offset + link.length)], as: UTF8.self)
            return "\(link.kind.rawValue): \(covered)" + (link.url == covered ? "" : " -> \(link.url)")
        }
        #expect(got == expectations)
    }

    /// National phone numbers read in a region (issue 26): the trunk
    /// prefix gives way to the calling code, an international prefix to
    /// `+`, and another region's shapes stay national.
    static let regionCases: [(String, String, [String])] = [
        ("FR", "0612345678", ["tel:+33612345678"]),
        ("FR", "06 12 34 56 78", ["tel:+33612345678"]),
        ("FR", "0033 6 12 34 56 78", ["tel:+33612345678"]),
        ("FR", "0033612345678", ["tel:+33612345678"]),
        ("FR", "+33 6 12 34 56 78", ["tel:+33612345678"]),
        ("FR", "(555) 010-9999", ["tel:5550109999"]),
        ("FR", "0612345", []),
        ("FR", "00 0612345678", []),
        ("DE", "030 1234567", ["tel:+49301234567"]),
        ("DE", "0049 30 1234567", ["tel:+49301234567"]),
        ("GB", "020 7946 0958", ["tel:+442079460958"]),
        ("US", "(555) 010-9999", ["tel:+15550109999"]),
        ("US", "1-800-555-0199", ["tel:+18005550199"]),
        ("US", "011 44 20 7946 0958", ["tel:+442079460958"]),
        ("US", "06 12 34 56 78", ["tel:0612345678"]),
        ("IT", "06 1234 5678", ["tel:+390612345678"]),
        ("JP", "010 44 20 7946 0958", ["tel:+442079460958"]),
        ("AU", "0011 44 20 7946 0958", ["tel:+442079460958"]),
        ("FR", "2024-01-15 and 15.01.2024 and 10.0.0.1:8080 and 4111 1111 1111 1111", []),
        ("FR", "ISBN 978-3-16-148410-0 and order #0612345678", []),
    ]

    @Test(arguments: regionCases) func nationalNumbersAreReadInTheirRegion(_ code: String, _ text: String, _ urls: [String]) throws {
        let region = try #require(PhoneRegion(code))
        #expect(LinkDetector(region: region).links(in: text).map(\.url) == urls)
    }

    @Test func regionsComeFromCodesAndLocales() {
        #expect(PhoneRegion("fr")?.callingCode == "33")
        #expect(PhoneRegion("XX") == nil)
        #expect(PhoneRegion(locale: "fr_FR.UTF-8")?.code == "FR")
        #expect(PhoneRegion(locale: "de_CH@euro")?.code == "CH")
        #expect(PhoneRegion(locale: "C.UTF-8") == nil && PhoneRegion(locale: "en") == nil && PhoneRegion(locale: "POSIX") == nil)
        // POSIX's order: LC_ALL, then LC_TELEPHONE, then LANG.
        #expect(PhoneRegion.ofLocale(in: ["LANG": "en_US.UTF-8", "LC_TELEPHONE": "fr_FR.UTF-8"])?.code == "FR")
        #expect(PhoneRegion.ofLocale(in: ["LC_ALL": "de_DE.UTF-8", "LC_TELEPHONE": "fr_FR.UTF-8"])?.code == "DE")
        #expect(PhoneRegion.ofLocale(in: ["LC_ALL": "", "LANG": "it_IT.UTF-8"])?.code == "IT")
        #expect(PhoneRegion.ofLocale(in: [:]) == nil)
    }

    @Test func kindsCanBeRestricted() {
        let text = "jane@example.com https://example.com +44 20 7946 0958 zoommtg://x"
        #expect(LinkDetector(kinds: [.email]).links(in: text).map(\.url) == ["mailto:jane@example.com"])
        #expect(LinkDetector(kinds: [.phone, .other]).links(in: text).map(\.url) == ["tel:+442079460958", "zoommtg://x"])
        // Restricting never changes what the others cover: the e-mail address
        // inside a URL is not reported as e-mail when only e-mail is asked for.
        #expect(LinkDetector(kinds: [.email]).links(in: "https://example.com/user@example.org").isEmpty)
    }

    /// A megabyte of Markdown-looking debris is scanned in linear time:
    /// `[a](` repeated once took minutes (each opening read the rest of the
    /// text), and a megabyte of `[` four seconds. A regression hangs past
    /// the time limit.
    @Test(.timeLimit(.minutes(1))) func hostileTextsStayLinear() {
        let megabyte = 1 << 20
        let texts = [
            String(repeating: "[a](", count: megabyte / 4),
            String(repeating: "[", count: megabyte),
            String(repeating: "[a](", count: megabyte / 8) + String(repeating: ")", count: megabyte / 8),
        ]
        for text in texts {
            #expect(LinkDetector().links(in: text).count <= 1, "\(text.prefix(20))…")
        }
        let nested = "[ok](https://ok.example/)" + String(repeating: "[a](", count: 1000) + "[b](https://b.example/)" + String(repeating: ")", count: 1000)
        #expect(LinkDetector().links(in: nested).map(\.url) == ["https://ok.example/", "https://b.example/"])
    }

    @Test func rangesAreUTF8Offsets() {
        let links = LinkDetector().links(in: "é😀 https://x.example/ü")
        #expect(links.map(\.offset) == [7])
        #expect(links.map(\.length) == [20])
    }
}
