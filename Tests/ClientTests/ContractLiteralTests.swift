import DispatcherAPI
import Foundation
import Routing
import TestSupport
import Testing

/// The contract is spelled once, in `DispatcherAPI` (and its words in the
/// vocabulary, `Routing`): no other source file writes a bus name, object
/// path, member, signature, option key or result word as a literal, so that
/// two sides cannot drift apart. Comments may name them.
@Suite struct ContractLiteralTests {
    /// Every Swift source line outside the contract's own modules, with its place.
    static func lines(outside excluded: Set<String> = ["DispatcherAPI", "Routing", "DBus"]) -> [(place: String, text: String)] {
        let root = Binaries.repository + "/Sources"
        var found: [(String, String)] = []
        for module in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where !excluded.contains(module) {
            let files = FileManager.default.enumerator(atPath: root + "/" + module)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let text = (try? String(contentsOfFile: root + "/" + module + "/" + file, encoding: .utf8)) ?? ""
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//") else { continue }
                    found.append(("\(module)/\(file):\(number + 1)", String(line)))
                }
            }
        }
        return found
    }

    /// Words no other text has: wrong wherever they stand as a literal.
    static let words: [String] = DispatcherAPI.OptionKey.all.filter { !generic.contains($0) }
        + HandlerReply.words + Outcome.allCases.map(\.rawValue)
        + [DispatcherAPI.Member.openURL, DispatcherAPI.Member.openURLWithOptions, DispatcherAPI.Member.registerHandler,
           DispatcherAPI.Member.unregisterHandler, DispatcherAPI.Member.listHandlers, DispatcherAPI.Member.listRules,
           DispatcherAPI.Member.explain, DispatcherAPI.Member.detectLinks, DispatcherAPI.Member.handlersChanged,
           DispatcherAPI.Member.handleURL, DispatcherAPI.chooseMember].map(\.rawValue)

    /// Option keys that are ordinary words too ("rule" in a log line, a rule
    /// file's `Ask=`): wrong only where they stand as a key, `["ask"]` or
    /// `"ask": Variant`. (`org.freedesktop.Application`'s member names are
    /// caught with its interface name: `Open` is also a rule-file key.)
    static let generic: Set<String> = ["ask", "rule", "caller", "remember", "timeout", "deadline", "kinds"]

    /// Whether `line` spells a contract word as a literal.
    static func spellsContract(_ line: String) -> String? {
        if let word = words.first(where: { line.contains("\"" + $0 + "\"") }) { return word }
        return generic.first { line.contains("[\"" + $0 + "\"]") || line.contains("\"" + $0 + "\": Variant") }
    }

    @Test func noContractLiteralOutsideTheContract() {
        var stray: [String] = []
        for (place, line) in Self.lines() {
            if line.contains("\"org.openurld.") || line.contains("\"/org/openurld") || line.contains("\"org.freedesktop.Application\"") {
                stray.append("\(place): a bus name or path: \(line.trimmingCharacters(in: .whitespaces))")
            }
            if line.contains("Argument(\"") { stray.append("\(place): a signature: \(line.trimmingCharacters(in: .whitespaces))") }
            if let word = Self.spellsContract(line) {
                stray.append("\(place): the contract word \"\(word)\": \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(stray.isEmpty, "\(stray.joined(separator: "\n"))")
    }

    /// The check itself finds what it looks for.
    @Test func theCheckFindsALiteral() {
        let planted = ["        options[\"notify-failure\"] = Variant(true)", "case \"handled\": break", "if options[\"ask\"] != nil {"]
        for line in planted { #expect(Self.spellsContract(line) != nil, "\(line)") }
        #expect(Self.spellsContract("let who = \"rule\"") == nil, "an ordinary word is not the contract's")
    }
}
