import Foundation
import Testing

@testable import Routing

/// The URL Standard's own tests (web-platform-tests' `urltestdata.json`),
/// as Debian ships them in `librust-url-dev` (rust-url 2.3.1's copy;
/// `scripts/ensure-deps test` installs it), run against the host openurld
/// reads from each absolute web URL. Every difference is listed, with its
/// reason, in `URLStandard/differences.tsv`: a new difference fails, and so
/// does a listed one that went away.
@Suite struct URLStandardTests {
    static let dataPattern = "/usr/share/cargo/registry/url-"

    static func dataFile() throws -> String {
        let registry = "/usr/share/cargo/registry"
        let found = (try? FileManager.default.contentsOfDirectory(atPath: registry))?
            .filter { $0.hasPrefix("url-") }.sorted().last.map { registry + "/" + $0 + "/tests/urltestdata.json" }
        return try #require(found.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil },
                            "urltestdata.json is missing: install librust-url-dev (scripts/ensure-deps test does)")
    }

    /// What openurld reads from `input`: the host, or `nil` when it refuses the URL.
    static func ours(_ input: String) -> String? {
        guard let url = try? ValidatedURL(input) else { return nil }
        return url.host?.description ?? ""
    }

    /// The cases that speak of what openurld does: an absolute URL of a web
    /// scheme, not resolved against the base, with no characters the
    /// standard strips (openurld refuses those instead, see below).
    static func applicable(_ test: [String: Any]) -> Bool {
        guard let input = test["input"] as? String else { return false }
        let scheme = input.prefix { $0 != ":" }.lowercased()
        guard ["http", "https", "ws", "wss", "ftp"].contains(scheme), input.contains(":") else { return false }
        if input.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) { return false }
        // "http:foo" against an http: base is relative in the standard; openurld has no base.
        if let base = test["base"] as? String, base.lowercased().hasPrefix(scheme + ":"),
           !input.dropFirst(scheme.count + 1).hasPrefix("//") { return false }
        return true
    }

    @Test func hostsAgreeWithTheURLStandardsOwnTests() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: try Self.dataFile()))
        let tests = try #require(try JSONSerialization.jsonObject(with: data) as? [Any]).compactMap { $0 as? [String: Any] }
        let verdictsText = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/URLStandard/differences.tsv",
            encoding: .utf8)
        var verdicts: [String: String] = [:]
        for line in verdictsText.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", maxSplits: 1)
            if fields.count == 2 { verdicts[String(fields[0]).replacingOccurrences(of: "\\t", with: "\t")] = String(fields[1]) }
        }
        var checked = 0
        var differing: Set<String> = []
        for test in tests where Self.applicable(test) {
            let input = test["input"] as! String
            let theirs: String? = (test["failure"] as? Bool) == true ? nil : (test["hostname"] as? String)
            checked += 1
            let mine = Self.ours(input)
            if mine != theirs {
                differing.insert(input)
                if verdicts[input] == nil {
                    Issue.record("\(input.debugDescription): openurld reads \(mine.map { "'\($0)'" } ?? "failure"), the standard \(theirs.map { "'\($0)'" } ?? "failure"); judge it in differences.tsv")
                }
            }
        }
        for (input, reason) in verdicts where !differing.contains(input) {
            Issue.record("\(input.debugDescription) is listed as a difference (\(reason)) but now agrees: take it out")
        }
        #expect(checked > 100, "the data has the cases this test expects")
        print("URL Standard: \(checked) cases, \(differing.count) listed differences")
    }
}
