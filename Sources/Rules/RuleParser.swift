import FileAccess
import LinearRegex
import Routing
import XDG

/// Reads rules from the text of one rule file.
///
/// A rule with any error is skipped, and so is only that rule: the file's
/// other rules load, and each problem is reported as `file:line: reason`.
public enum RuleParser {
    /// The keys a `[Rule NAME]` group may have.
    static let keys: Set<String> = [
        "Schemes", "Hosts", "Paths", "Match", "Callers", "StripQuery", "Rewrite", "Open", "Exec", "Result", "Ask",
        "Priority", "Enabled", "Comment",
    ]

    /// Parses `text`, read from `path` (for the sources and diagnostics).
    public static func parse(_ text: String, path: String) -> (rules: [Rule], diagnostics: [RuleDiagnostic]) {
        let (file, problems) = KeyFile.parsingLeniently(text)
        var diagnostics = problems.map { RuleDiagnostic(RuleSource(path: path, line: $0.line), $0.reason) }
        var rules: [Rule] = []
        var names = Set<String>()
        // Problems before the first group belong to no rule; later ones to the group above them.
        // Problems come in line order, so one pointer walks them alongside the groups.
        var nextProblem = 0
        for (index, group) in file.groups.enumerated() {
            let end = index + 1 < file.groups.count ? file.groups[index + 1].line : Int.max
            while nextProblem < problems.count, problems[nextProblem].line < group.line { nextProblem += 1 }
            let syntaxProblem = nextProblem < problems.count && problems[nextProblem].line < end
            let source = RuleSource(path: path, line: group.line)
            do throws(RuleDiagnostic) {
                guard group.name.hasPrefix("Rule "), !group.name.dropFirst(5).allSatisfy(\.isWhitespace) else {
                    throw RuleDiagnostic(source, "unknown group [\(group.name)]; rules are [Rule NAME] groups")
                }
                let name = String(group.name.dropFirst(5).drop { $0 == " " || $0 == "\t" })
                guard names.insert(name).inserted else {
                    throw RuleDiagnostic(source, "a second rule named '\(name)' in this file")
                }
                let rule = try self.rule(named: name, from: group, source: source)
                if !syntaxProblem { rules.append(rule) }
            } catch {
                diagnostics.append(error)
            }
        }
        diagnostics.sort { $0.source.line < $1.source.line }
        return (rules, diagnostics)
    }

    private static func rule(named name: String, from group: KeyFile.Group, source: RuleSource) throws(RuleDiagnostic) -> Rule {
        var seen: [String: Int] = [:]
        for entry in group.entries {
            let key = entry.key.hasPrefix("Comment[") ? "Comment" : entry.key
            guard keys.contains(key) else {
                throw RuleDiagnostic(RuleSource(path: source.path, line: entry.line), "unknown key '\(entry.key)'")
            }
            if seen[key] != nil && key != "Comment" {
                throw RuleDiagnostic(RuleSource(path: source.path, line: entry.line), "\(key)= is given twice (first on line \(seen[key]!))")
            }
            seen[key] = entry.line
        }
        func at(_ key: String) -> RuleSource { RuleSource(path: source.path, line: seen[key] ?? source.line) }
        func string(_ key: String) -> String? { group.value(key).map(KeyFile.unescape) }
        func list(_ key: String) -> [String] { group.value(key).map(KeyFile.list) ?? [] }
        func globs(_ key: String) throws(RuleDiagnostic) -> [PathGlob] {
            var result: [PathGlob] = []
            for text in list(key) {
                do { result.append(try PathGlob(text)) } catch {
                    throw RuleDiagnostic(at(key), "\(key)=: '\(text.prefix(64))' is not a valid glob")
                }
            }
            return result
        }

        let priority: Int32
        if let text = group.value("Priority") {
            guard let value = Int32(text) else {
                throw RuleDiagnostic(at("Priority"), "Priority= must be a whole number from \(Int32.min) to \(Int32.max), not '\(text.prefix(32))'")
            }
            priority = value
        } else {
            priority = 0
        }
        let spec: HandlerSpec
        do {
            let schemes = list("Schemes")
            spec = try HandlerSpec(schemes: schemes.isEmpty ? ["*"] : schemes, hosts: list("Hosts"), paths: list("Paths"),
                                   priority: priority, scope: .session, name: String(name.prefix(256)))
        } catch {
            let key = error.message.contains("host") ? "Hosts" : error.message.contains("path") ? "Paths" : "Schemes"
            throw RuleDiagnostic(at(key), error.message)
        }
        var pattern: LinearRegex?
        // Taken as written: keyfile escapes would turn the pattern's \s into a space.
        if let text = group.value("Match") {
            do { pattern = try LinearRegex(text) } catch {
                throw RuleDiagnostic(at("Match"), "Match=: \(error)")
            }
        }
        var rewrite: URLTemplate?
        if let text = string("Rewrite") {
            do { rewrite = try URLTemplate(text, pattern: pattern) } catch {
                throw RuleDiagnostic(at("Rewrite"), "Rewrite=: \(error)")
            }
        }
        let action = try self.action(of: group, at: at)
        let stripQuery = try globs("StripQuery")
        guard action != nil || rewrite != nil || !stripQuery.isEmpty else {
            throw RuleDiagnostic(source, "rule '\(name)' does nothing: give StripQuery=, Rewrite=, Open=, Exec=, Result= or Ask=")
        }
        let enabled: Bool
        if let text = group.value("Enabled") {
            guard let value = KeyFile.boolean(text) else {
                throw RuleDiagnostic(at("Enabled"), "Enabled= must be true or false, not '\(text.prefix(32))'")
            }
            enabled = value
        } else {
            enabled = true
        }
        return Rule(name: name, source: source, spec: spec, pattern: pattern, callers: try globs("Callers"),
                    stripQuery: stripQuery, rewrite: rewrite, action: action, isEnabled: enabled)
    }

    private static func action(of group: KeyFile.Group, at: (String) -> RuleSource) throws(RuleDiagnostic) -> Rule.Action? {
        let given = ["Open", "Exec", "Result", "Ask"].filter { group.value($0) != nil }
        guard given.count <= 1 else {
            throw RuleDiagnostic(at(given[1]), "a rule can have only one of Open=, Exec=, Result= and Ask= (it has \(given.map { $0 + "=" }.joined(separator: " and ")))")
        }
        if let text = group.value("Ask") {
            var targets: [Target] = []
            for written in KeyFile.list(text) {
                guard let target = Target(written) else {
                    throw RuleDiagnostic(at("Ask"), "Ask= lists targets such as firefox.desktop, firefox.desktop:new-private-window or firefox.desktop@work, not '\(written.prefix(64))'")
                }
                if !targets.contains(target) { targets.append(target) }
            }
            return .ask(targets: targets)
        }
        if let id = group.value("Open").map(KeyFile.unescape) {
            guard let target = Target(id) else {
                throw RuleDiagnostic(at("Open"), "Open= takes a target such as firefox.desktop, firefox.desktop:new-private-window or firefox.desktop@work, not '\(id.prefix(64))'")
            }
            return .open(target)
        }
        if let commandLine = group.value("Exec").map(KeyFile.unescape) {
            do {
                let exec = try ExecLine(commandLine)
                guard exec.acceptsURLs else { throw ExecLineError("it has no %u, so the URL could not be passed") }
            } catch {
                throw RuleDiagnostic(at("Exec"), "Exec=: \(error)")
            }
            return .exec(commandLine: commandLine)
        }
        if let text = group.value("Result") {
            if text == "default" { return .useDefault }
            guard let reply = HandlerReply(word: text) else {
                throw RuleDiagnostic(at("Result"), "Result= must be handled, discarded, systemAction or default, not '\(text.prefix(32))'")
            }
            return .result(HandlerAnswer(reply))
        }
        return nil
    }
}
