import DBus
import DispatcherAPI
import Rules
import XDG

/// `rules` and `check-rules`: what the rule files say, and whether they are valid.
struct RuleCommands {
    let environment: [String: String]

    private var directories: [String] { RuleFiles.directories(BaseDirectories(environment: environment)) }

    /// Lists the daemon's rules; when it cannot be reached, the files as it would load them.
    func list(json: Bool) async -> ExitStatus {
        var rules: [DispatcherClient.RuleInfo]
        var problems: [String]
        do {
            let connection = try await Connection.session(environment: environment)
            defer { connection.close() }
            (rules, problems) = try await DispatcherClient(connection: connection).rules()
        } catch {
            if !DispatcherClient.isUnreachable(error) && error.name != .unknownMethod {
                Console.error(error.message)
                return .unreachable
            }
            Console.error("\(DispatcherClient.isUnreachable(error) ? DispatcherClient.unreachableReason(error) : "openurld cannot list its rules"); showing the rule files as it would load them")
            let load = RuleFiles.load(from: directories)
            rules = load.rules.map(Self.info)
            problems = load.diagnostics.map(\.description)
        }
        if json {
            Console.out(JSON.object([("rules", JSON.array(rules.map(InspectCommands.json))), ("problems", JSON.array(problems.map(JSON.string)))]) + "\n")
            return .accepted
        }
        if rules.isEmpty {
            Console.out("no rules are loaded (rule files: \(directories.map { $0 + "/*.rules" }.joined(separator: ", ")))\n")
        } else {
            let rows = [["NAME", "SOURCE", "PRIORITY", "MATCHES", "EFFECT"]] + rules.map { rule in
                [rule.name + (rule.isEnabled ? "" : " (disabled)"), "\(rule.file):\(rule.line)", String(rule.priority),
                 Self.matches(rule), rule.effect]
            }
            Console.out(table(rows))
        }
        for problem in problems { Console.out("problem: \(problem)\n") }
        return .accepted
    }

    /// Validates `files`, or every rule file when none are given.
    func check(_ files: [String]) -> ExitStatus {
        let load = files.isEmpty ? RuleFiles.load(from: directories) : RuleFiles.load(files: files)
        for diagnostic in load.diagnostics { Console.out("\(diagnostic)\n") }
        let summary = "\(load.rules.count) rule\(load.rules.count == 1 ? "" : "s") in \(load.files.count) file\(load.files.count == 1 ? "" : "s")"
        if load.diagnostics.isEmpty {
            Console.out("\(summary): no problems\n")
            return .accepted
        }
        Console.out("\(summary) loaded; \(load.diagnostics.count) problem\(load.diagnostics.count == 1 ? "" : "s") (the rules they concern are skipped)\n")
        return .rejected
    }

    private static func matches(_ rule: DispatcherClient.RuleInfo) -> String {
        var parts = [rule.schemes.joined(separator: ",")]
        if !rule.hosts.isEmpty { parts.append("hosts " + rule.hosts.joined(separator: ",")) }
        if !rule.paths.isEmpty { parts.append("paths " + rule.paths.joined(separator: ",")) }
        if let match = rule.match { parts.append("match " + match) }
        if !rule.callers.isEmpty { parts.append("callers " + rule.callers.joined(separator: ",")) }
        return parts.joined(separator: " ")
    }

    /// A rule read from its file, described as the daemon would describe it.
    static func info(_ rule: Rule) -> DispatcherClient.RuleInfo { DispatcherAPI.RuleInfo(rule) }
}
