import HostNames
import Testing

/// The host display policy (`HostDisplay`): Unicode where it cannot pass for
/// another site, ASCII with the reason otherwise. Cases from the published
/// browser policies' own examples and from the look-alikes issue 28 names.
@Suite struct HostDisplayTests {
    static func ascii(_ host: String) -> String {
        guard case .success(.domain(let name)) = HostName.parse(host) else { return "" }
        return name
    }

    @Test(arguments: [
        // Single scripts, as their own speakers write them.
        ("bücher.example", "bücher.example"),
        ("cuillère.fr", "cuillère.fr"),
        ("толстой.com", "толстой.com"),
        ("πλάτων.gr", "πλάτων.gr"),
        ("北京大学.cn", "北京大学.cn"),
        ("视频.com", "视频.com"),
        ("www.一123.com", "www.一123.com"),
        // Japanese: Han, kana and Latin together; Korean: Hangul with Latin.
        ("朝日あさひ.jp", "朝日あさひ.jp"),
        ("eコマース.jp", "eコマース.jp"),
        ("www.전자정부.kr", "www.전자정부.kr"),
        ("hello中国.com", "hello中国.com"),
        // ASCII Latin with one other script that does not pass for Latin.
        ("abcअ.in", "abcअ.in"),
        // Whole-script look-alikes are ordinary under their own countries' domains.
        ("аррӏе.ru", "аррӏе.ru"),
        ("аррӏе.рф", "аррӏе.рф"),
        ("οκ.gr", "οκ.gr"),
    ])
    func shownInUnicode(host: String, shown: String) {
        let display = HostDisplay(Self.ascii(host))
        #expect(display.shown == shown)
        #expect(display.problem == nil)
        #expect(display.readsAs == nil)
    }

    @Test(arguments: [
        // Whole-script look-alikes: every letter reads as Latin.
        ("аррӏе.com", HostDisplay.Problem.lookAlike(.cyrillic), "apple.com"),
        ("аррӏе.рф.com", .lookAlike(.cyrillic), nil),
        ("ѕсоре.net", .lookAlike(.cyrillic), "scope.net"),
        ("хху.com", .lookAlike(.cyrillic), "xxy.com"),
        ("οκ.com", .lookAlike(.greek), "ok.com"),
        ("օօ.com", .lookAlike(.armenian), "oo.com"),
        // Mixed scripts that real names do not mix.
        ("аpple.com", .mixedScripts, "apple.com"),
        ("ехаmрӏе.com", .mixedScripts, "example.com"),  // a Latin m among Cyrillic look-alikes
        ("gօօgle.com", .mixedScripts, "google.com"),
        ("толстой-in-russian.com", .mixedScripts, nil),
        ("war-and-миръ.com", .mixedScripts, nil),
        ("πλάτωνicrelationship.com", .mixedScripts, nil),
        ("aбвअ.com", .mixedScripts, nil),
        // Non-ASCII Latin with another script (Chromium's narrowing).
        ("éअ.in", .mixedScripts, nil),
        // Symbols, scripts no registry offers, invisible joiners, doubled marks.
        ("i♥ny.com", .unusualCharacters, nil),
        ("ᏣᎳᎩ.com", .unusualCharacters, nil),
        ("gruz\u{300}\u{300}ere.com", .unusualCharacters, nil),
        ("a\u{200D}b.com", .unusualCharacters, nil),
    ] as [(String, HostDisplay.Problem, String?)])
    func shownInASCII(host: String, problem: HostDisplay.Problem, readsAs: String?) {
        let ascii = Self.ascii(host)
        let display = HostDisplay(ascii)
        #expect(!ascii.isEmpty)
        #expect(display.problem == problem, "\(host)")
        #expect(display.readsAs == readsAs, "\(host)")
        // The label at fault is in ASCII; the others are left as they are.
        #expect(display.shown.split(separator: ".").first?.hasPrefix("xn--") == true, "\(host) shown as \(display.shown)")
    }

    @Test func onlyTheLabelAtFaultIsShownInASCII() {
        let display = HostDisplay(Self.ascii("аррӏе.bücher.com"))
        #expect(display.shown == "xn--80ak6aa92e.bücher.com")
        #expect(display.unicode == "аррӏе.bücher.com")
        #expect(display.readsAs == nil, "bücher does not read as Latin ASCII")
    }

    @Test func asciiHostsAreShownAsTheyAre() {
        for host in ["example.com", "a-b.example", "192.0.2.1", "xn--", "xn--zz"] {
            #expect(HostDisplay(host).shown == host)
            #expect(HostDisplay(host).readsAs == nil)
        }
        #expect(HostDisplay("example.com").problem == nil)
        #expect(!HostDisplay("example.com").isInternational)
        #expect(HostDisplay("xn--zz.com").problem == .unusualCharacters, "an xn-- label that does not decode")
    }
}
