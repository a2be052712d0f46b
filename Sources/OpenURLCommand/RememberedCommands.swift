import DBus
import Desktop
import DispatcherAPI
import Glibc
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
            let target = if case .open(let opened)? = rule.action { opened.description } else { rule.effectDescription }
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
        var forgotten: [String] = []
        defer { waitForTheDaemon(toDrop: forgotten) }
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
                    forgotten += removed
                }
            } catch {
                Console.error("cannot write \(file.path): \(error)")
                status = .unreachable
            }
        }
        return status
    }

    /// Returns once the running daemon no longer lists the rules `names`
    /// (it reloads a rule file about 100 ms after it changed), so that the
    /// next link after `forget` is asked about; at most 2 s. A daemon that
    /// is not running is not started: it reads the file when it starts.
    func waitForTheDaemon(toDrop names: [String]) {
        guard !names.isEmpty,
              let connection = try? BlockingConnection.session(environment: environment, timeout: .seconds(1)) else { return }
        defer { connection.close() }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        while clock.now < deadline {
            guard let reply = try? connection.call(
                DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.dispatcherInterface, DispatcherAPI.Member.listRules,
                timeout: .seconds(1), autoStart: false),
                let (rules, _) = try? reply.decode([[String: Variant]].self, [String].self) else { return }
            let listed = Set(rules.map { DispatcherAPI.RuleInfo(listed: $0).name })
            if !names.contains(where: listed.contains) { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
    }
}
