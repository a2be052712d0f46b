// libFuzzer target: rule files, the regular-expression engine, templates and
// query stripping (built by scripts/fuzz). The input is a rule file; its
// first line, if it starts with "#~", is also used as a pattern over the rest.
import LinearRegex
import Routing
import Rules

private let urls = try! [
    "https://a.example/p/q?utm_x=1&id=2#f", "mailto:x@y?subject=s", "zoommtg://zoom.us/join?confno=1",
].map { try ValidatedURL($0) }
private let globs = try! [PathGlob("utm_*"), PathGlob("id")]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRules(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let (rules, diagnostics) = RuleParser.parse(text, path: "fuzz.rules")
    precondition(diagnostics.allSatisfy { $0.source.line >= 1 }, "a problem without a line")
    let set = RuleSet(rules)
    for url in urls {
        for candidate in set.candidates(for: url, callerAppID: "fuzz") {
            _ = candidate.payload.evaluate(url)
        }
        let stripped = strippingQuery(url.text, parameters: globs)
        precondition(strippingQuery(stripped, parameters: globs) == stripped, "stripping is not idempotent")
        precondition(strippingQuery(url.text, parameters: []) == url.text)
    }
    if text.hasPrefix("#~"), let newline = text.firstIndex(of: "\n") {
        let pattern = String(text[text.index(text.startIndex, offsetBy: 2)..<newline])
        let subject = String(text[text.index(after: newline)...])
        if let regex = try? LinearRegex(pattern), let match = regex.firstMatch(in: subject) {
            precondition(match[0] != nil, "a match without group 0")
            precondition(match.range.upperBound <= subject.unicodeScalars.count, "a match past the end")
            for group in 0...regex.captureCount { _ = match[group] }
        }
    }
    return 0
}
