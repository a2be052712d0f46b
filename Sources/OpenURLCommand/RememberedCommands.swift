import Desktop
import HostNames
import Rules
import XDG

/// `openurl remembered` and `openurl forget HOST`: the chooser's remembered
/// answers, kept as rules in `rules.d/remembered.rules`. The daemon sees
/// the file change and reloads, like any edit of a rule file.
struct RememberedCommands {
    let environment: [String: String]

    var file: RememberedChoiceFile { RememberedChoiceFile(base: BaseDirectories(environment: environment)) }

    func list(json: Bool) -> ExitStatus {
        let (rules, diagnostics) = file.rules()
        for diagnostic in diagnostics { Console.error("\(diagnostic)") }
        let rows = rules.filter { $0.name.hasPrefix(RememberedChoices.namePrefix) }.map { rule -> [String] in
            let target = if case .open(let id)? = rule.action { id } else { rule.effectDescription }
            return [String(rule.name.dropFirst(RememberedChoices.namePrefix.count)), rule.spec.schemes.joined(separator: ","), target]
        }
        if json {
            Console.out(JSON.array(rows.map {
                JSON.object([("host", JSON.string($0[0])), ("schemes", JSON.string($0[1])), ("target", JSON.string($0[2]))])
            }) + "\n")
            return .accepted
        }
        guard !rows.isEmpty else {
            Console.out("nothing remembered (\(file.path) has no remembered choices)\n")
            return .accepted
        }
        Console.out(table([["HOST", "SCHEMES", "TARGET"]] + rows))
        return .accepted
    }

    func forget(_ hosts: [String]) -> ExitStatus {
        var status = ExitStatus.accepted
        for written in hosts {
            // Written as a browser reads it, as the daemon wrote it.
            let bare = written.hasPrefix("*.") ? String(written.dropFirst(2)) : written
            guard case .success(let host) = HostName.parse(bare) else {
                Console.error("\(quoted(written)) is not a host")
                status = .usage
                continue
            }
            do {
                let removed = try file.forget(host.matchingKey)
                if removed.isEmpty {
                    Console.error("nothing is remembered for \(host.matchingKey)")
                    if status == .accepted { status = .rejected }
                } else {
                    for name in removed { Console.out("forgot '\(name)'\n") }
                }
            } catch {
                Console.error("cannot write \(file.path): \(error)")
                status = .unreachable
            }
        }
        return status
    }
}
