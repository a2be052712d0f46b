import ChooserService
import HostNames
import Router
import Routing
import Rules
import Synchronization
import Foundation
import Testing
import TestSupport
import XDG

/// `Ask=`, the chooser's answers in the walk, remembered choices and what
/// the window warns about: pure, from tables.
struct AskingTests {
    /// A fallback that offers two targets and records what it opened.
    final class Desk: URLOpener {
        let opened = Mutex<[String]>([])
        func application(for url: ValidatedURL) -> String? { "fallback.desktop" }
        func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult {
            opened.withLock { $0.append("fallback \(url.text)") }
            return .opened(application: "fallback.desktop")
        }
        func open(_ url: ValidatedURL, with target: Target, activationToken: String?) async -> LaunchResult {
            let id = target.description
            opened.withLock { $0.append("\(id) \(url.text) \(activationToken ?? "-")") }
            return .opened(application: id)
        }
        func candidates(for url: ValidatedURL, offering: [Target]) -> [ChooserCandidate] {
            let all = [ChooserCandidate(target: .application("a.desktop"), name: "A", icon: ""),
                       ChooserCandidate(target: .profile("b.desktop", profile: "work"), name: "B (work)", icon: "b")]
            return offering.isEmpty ? all : all.filter { offering.contains($0.target) }
        }
    }

    /// A chooser that gives one answer and records what it was asked.
    final class Person: Chooser {
        let answer: Choice
        let asked = Mutex<[(ChoiceRequest, Duration)]>([])
        init(_ answer: Choice) { self.answer = answer }
        func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice {
            asked.withLock { $0.append((request, timeout)) }
            return answer
        }
    }

    static let askRule = "[Rule ask]\nPriority=-10\nAsk=\n"

    func route(_ answer: Choice, rules: String = askRule, url: String = "https://docs.example.com/x", first: Bool = false)
        async throws -> (Router<Never>.Route, Desk, Person) {
        let desk = Desk()
        let person = Person(answer)
        let router = Router<Never>(
            rules: RuleSet(RuleParser.parse(rules, path: "t.rules").rules), opener: desk, deadline: .seconds(20),
            chooser: person, chooserDeadline: .seconds(120),
            rememberable: { url in
                let host = url.host?.description ?? ""
                return RememberTargets(host: host, domain: String(host.split(separator: ".").suffix(2).joined(separator: ".")))
            })
        let route = await router.open(try ValidatedURL(url), caller: ":1.5", callerAppID: "org.chat", activationToken: "old",
                                      asking: .init(first: first, linkText: "example.com"))
        return (route, desk, person)
    }

    @Test func eachAnswerMapsOntoTheWalk() async throws {
        let url = try ValidatedURL("https://docs.example.com/edited")
        let chosen = try await route(.target(.profile("b.desktop", profile: "work"), url: url, activationToken: "fresh", remember: .none))
        #expect(chosen.0.outcome == .handled && chosen.0.rule == "ask" && chosen.0.application == "b.desktop@work")
        #expect(chosen.0.finalURL == url, "the edited URL is the one opened, and reported")
        #expect(chosen.1.opened.withLock { $0 } == ["b.desktop@work https://docs.example.com/edited fresh"])
        let request = try #require(chosen.2.asked.withLock { $0.first })
        #expect(request.0.candidates.count == 2 && request.0.rule == "ask" && request.0.callerAppID == "org.chat")
        #expect(request.0.activationToken == "old" && request.0.linkText == "example.com" && request.1 == .seconds(120))

        let cancelled = try await route(.cancelled)
        #expect(cancelled.0.outcome == .discarded && cancelled.1.opened.withLock { $0 }.isEmpty)
        let passed = try await route(.useDefault)
        #expect(passed.0.outcome == .opened && passed.1.opened.withLock { $0 } == ["fallback https://docs.example.com/x"])
        let lost = try await route(.lost("the chooser left"))
        #expect(lost.0.outcome == .undecided && lost.0.rule == "ask" && lost.1.opened.withLock { $0 }.isEmpty, "fails closed")
        let missing = try await route(.unavailable("none installed"))
        #expect(missing.0.outcome == .opened, "no chooser at all: the rule fails and passes, like any failing rule")
    }

    @Test func askListsOnlyItsTargetsAndNothingToOfferPasses() async throws {
        let listed = try await route(.cancelled, rules: "[Rule ask]\nAsk=b.desktop@work;\n")
        #expect(listed.2.asked.withLock { $0.first?.0.candidates.map(\.target.description) } == ["b.desktop@work"])
        let none = try await route(.cancelled, rules: "[Rule ask]\nAsk=c.desktop;\n")
        #expect(none.2.asked.withLock { $0 }.isEmpty && none.0.outcome == .opened)
    }

    @Test func askingFirstNeedsNoRule() async throws {
        let chosen = try await route(.target(.application("a.desktop"), url: try ValidatedURL("https://docs.example.com/x"), activationToken: nil, remember: .host),
                                     rules: "", first: true)
        #expect(chosen.0.outcome == .handled && chosen.0.rule == nil && chosen.0.application == "a.desktop")
        #expect(chosen.0.remembered == RememberedChoice(target: .application("a.desktop"), scheme: "https", host: "docs.example.com",
                                                        includesSubdomains: false, priority: 0))
        let passed = try await route(.useDefault, rules: "", first: true)
        #expect(passed.0.outcome == .opened)
    }

    @Test func aRememberedAnswerSitsJustInsideTheRuleThatAsked() async throws {
        let chosen = try await route(.target(.application("a.desktop"), url: try ValidatedURL("https://docs.example.com/x"), activationToken: nil, remember: .domain))
        #expect(chosen.0.remembered == RememberedChoice(target: .application("a.desktop"), scheme: "https", host: "example.com",
                                                        includesSubdomains: true, priority: -9))
    }

    /// An address edited to another host is remembered for the host that
    /// opened, as the window said, never the one first asked about.
    @Test func anEditedAddressIsRememberedForItsOwnHost() async throws {
        let edited = try ValidatedURL("https://wiki.other.example/page")
        let host = try await route(.target(.application("a.desktop"), url: edited, activationToken: nil, remember: .host))
        #expect(host.0.remembered?.host == "wiki.other.example" && host.0.remembered?.includesSubdomains == false)
        let domain = try await route(.target(.application("a.desktop"), url: edited, activationToken: nil, remember: .domain))
        #expect(domain.0.remembered?.host == "other.example" && domain.0.remembered?.includesSubdomains == true)
    }

    @Test func askParsesTargetsAndRefusesOthers() {
        let (rules, problems) = RuleParser.parse("[Rule a]\nAsk=x.desktop;y.desktop:new-window;z.desktop@Work Stuff;\n\n[Rule b]\nAsk=nonsense\n\n[Rule c]\nAsk=\nOpen=x.desktop\n", path: "t")
        #expect(rules.map(\.name) == ["a"])
        #expect(rules.first?.action == .ask(targets: [.application("x.desktop"), .action("y.desktop", action: "new-window"), .profile("z.desktop", profile: "Work Stuff")]))
        #expect(problems.map(\.description) == [
            "t:5: Ask= lists targets such as firefox.desktop, firefox.desktop:new-private-window or firefox.desktop@work, not 'nonsense'",
            "t:8: a rule can have only one of Open=, Exec=, Result= and Ask= (it has Open= and Ask=)",
        ])
    }

    @Test func theShippedExampleAsksForWhatNothingElseDecided() throws {
        let path = Binaries.repository + "/docs/examples/90-ask.rules"
        let parsed = RuleParser.parse(try String(contentsOfFile: path, encoding: .utf8), path: path)
        #expect(parsed.diagnostics.isEmpty, "\(parsed.diagnostics)")
        #expect(parsed.rules.map(\.action) == [.ask(targets: [])] && parsed.rules.first?.spec.priority == -1000)
    }

    @Test func rememberedRulesAreWrittenReadAndForgotten() {
        let entry = RememberedChoices.Entry(host: "example.com", includesSubdomains: true, schemes: ["http", "https"],
                                            target: .profile("firefox.desktop", profile: " odd;name"), priority: 5)
        let text = RememberedChoices.adding(entry, to: nil)
        let parsed = RuleParser.parse(text, path: "r")
        #expect(parsed.diagnostics.isEmpty, "\(parsed.diagnostics)")
        #expect(parsed.rules.map(\.name) == ["remembered *.example.com"])
        #expect(parsed.rules.first?.action == .open(.profile("firefox.desktop", profile: " odd;name")))
        #expect(parsed.rules.first?.spec.priority == 5)
        // Added again: replaced, not repeated; another host is kept apart.
        let other = RememberedChoices.Entry(host: "b.example", includesSubdomains: false, schemes: ["mailto"], target: .application("m.desktop"), priority: 0)
        let twice = RememberedChoices.adding(other, to: RememberedChoices.adding(entry, to: text))
        #expect(RuleParser.parse(twice, path: "r").rules.map(\.name) == ["remembered *.example.com", "remembered b.example"])
        let (kept, removed) = RememberedChoices.forgetting("example.com", in: twice)
        #expect(removed == ["remembered *.example.com"])
        #expect(RuleParser.parse(kept, path: "r").rules.map(\.name) == ["remembered b.example"])
    }

    @Test(arguments: [
        ("docs.example.com", "example.com"), ("example.com", "example.com"), ("a.b.example.co.uk", "example.co.uk"),
        ("co.uk", nil), ("com", nil), ("x.city.kawasaki.jp", "city.kawasaki.jp"), ("y.z.kawasaki.jp", "y.z.kawasaki.jp"),
        ("127.0.0.1", nil), ("DOCS.Example.COM.", "example.com"), ("bücher.example.de", "example.de"),
    ] as [(String, String?)])
    func registrableDomains(host: String, expected: String?) {
        let list = PublicSuffixList("// comment\ncom\nuk\nco.uk\njp\n*.kawasaki.jp\n!city.kawasaki.jp\nde\n")
        #expect(list.registrableDomain(of: host) == expected)
    }

    @Test(arguments: [
        ("https://example.com/", nil, []),
        ("http://example.com/", nil, [LinkWarning.notEncrypted]),
        ("https://bank.example@evil.example/", nil, [.userInfo(shown: "bank.example", host: "evil.example")]),
        ("https://xn--bcher-kva.example/", nil, [.internationalHost(ascii: "xn--bcher-kva.example")]),
        ("https://bücher.example/", nil, [.internationalHost(ascii: "xn--bcher-kva.example")]),
        // Cyrillic а among Latin letters: mixed, and read as apple.com.
        ("https://xn--pple-43d.com/", nil, [.lookAlike(readsAs: "apple.com", ascii: "xn--pple-43d.com"), .mixedScripts]),
        // All Cyrillic, every letter a look-alike (issue 28): no mixing to see.
        ("https://xn--80ak6aa92e.com/", nil, [.lookAlike(readsAs: "apple.com", ascii: "xn--80ak6aa92e.com")]),
        ("https://аррӏе.com/", nil, [.lookAlike(readsAs: "apple.com", ascii: "xn--80ak6aa92e.com")]),
        ("https://xn--i-7iq.ws/", nil, [.unusualCharacters]),
        // A look-alike label beside a Unicode one: no Latin name to say, still shown in ASCII, and said why.
        ("https://аррӏе.рф.com/", nil, [.lookAlikeLetters(script: "Cyrillic")]),
        ("https://evil.example/", "https://bank.example/login", [.textDiffers(shown: "bank.example", host: "evil.example")]),
        ("https://www.bank.example/", "bank.example", []),
    ] as [(String, String?, [LinkWarning])])
    func warnings(url: String, linkText: String?, expected: [LinkWarning]) throws {
        #expect(LinkPresentation(try ValidatedURL(url), linkText: linkText).warnings == expected)
    }

    /// A look-alike arriving in Unicode is shown in ASCII, so the bold host
    /// never reads as the site it imitates; a real international name is
    /// shown in Unicode however it arrived.
    @Test(arguments: [
        ("https://аррӏе.com/login", "xn--80ak6aa92e.com"),
        ("https://xn--80ak6aa92e.com/login", "xn--80ak6aa92e.com"),
        ("https://xn--bcher-kva.example/login", "bücher.example"),
        ("https://bücher.example/login", "bücher.example"),
        ("https://www.аррӏе.ru/login", "www.аррӏе.ru"),
    ])
    func theHostIsShownAsTheDisplayPolicySays(url: String, host: String) throws {
        let shown = LinkPresentation(try ValidatedURL(url))
        #expect([shown.beforeHost, shown.host, shown.afterHost] == ["https://", host, "/login"])
    }

    @Test func theHostIsSplitOutForEmphasis() throws {
        let shown = LinkPresentation(try ValidatedURL("https://user:pw@Example.COM:8080/a?b#c"))
        #expect([shown.beforeHost, shown.host, shown.afterHost] == ["https://user:pw@", "Example.COM", ":8080/a?b#c"])
        let ipv6 = LinkPresentation(try ValidatedURL("http://[::1]:3000/"))
        #expect([ipv6.beforeHost, ipv6.host, ipv6.afterHost] == ["http://", "[::1]", ":3000/"])
    }
}
