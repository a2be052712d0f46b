import DBus
import Desktop
import DispatcherAPI
import Routing

/// `explain`, `handlers` and `status`: read-only questions to the dispatcher.
struct InspectCommands {
    let environment: [String: String]

    private func client() async -> (DispatcherClient, Connection)? {
        do {
            let connection = try await Connection.session(environment: environment)
            return (DispatcherClient(connection: connection), connection)
        } catch {
            Console.error("cannot reach the session bus: \(error.message)")
            return nil
        }
    }

    func explain(_ text: String, json: Bool) async -> ExitStatus {
        let url: ValidatedURL
        do { url = try ValidatedURL(text) } catch {
            Console.error("\(quoted(text)): \(error.message)")
            return .usage
        }
        guard let (client, connection) = await client() else { return .unreachable }
        defer { connection.close() }
        do {
            let (steps, application) = try await client.explain(url.text)
            if json {
                var fields = [("url", JSON.string(url.text))]
                if let host = url.host { fields.append(("host", JSON.string(host.description))) }
                fields += [("handlers", JSON.array(steps.map(Self.json))), ("application", application.isEmpty ? "null" : JSON.string(application))]
                Console.out(JSON.object(fields) + "\n")
                return .accepted
            }
            Console.out(Self.describe(url, steps: steps, application: application, why: fallbackReason(application, steps: steps, url: url)))
            return .accepted
        } catch {
            let unreachable = DispatcherClient.isUnreachable(error)
            Console.error(unreachable ? DispatcherClient.unreachableReason(error) : error.message)
            return unreachable ? .unreachable : .usage
        }
    }

    /// Where the daemon's answer came from, as this session's defaults explain
    /// it; `nil` when they name another application than the daemon did (it
    /// runs with its own environment) or the URL is a file.
    func fallbackReason(_ application: String, steps: [DispatcherClient.ExplainStep], url: ValidatedURL) -> String? {
        let finalURL = steps.last(where: { $0.resultURL != nil })?.resultURL.flatMap { try? ValidatedURL($0) } ?? url
        guard !application.isEmpty, finalURL.scheme != "file" else { return nil }
        let found = try? DesktopDatabase(environment: environment)
            .fallbackApplication(forScheme: finalURL.scheme, system: DesktopDatabase.system(path: environment["PATH"]))
        guard let found, found.entry.id == application else { return nil }
        return found.reason.rawValue
    }

    /// `explain`'s text: each step, what it would do, and where the URL ends up.
    static func describe(_ validated: ValidatedURL, steps: [DispatcherClient.ExplainStep], application: String, why: String? = nil) -> String {
        let url = validated.text
        var lines = [steps.isEmpty ? "\(url): no handler or rule matches" : "\(url) would be offered, in this order, to:"]
        // A host spelled otherwise than a browser reads it (`ｅxample.com.`,
        // `0x7f.1`) is matched in its normalised form: say which.
        if let host = validated.host, let written = validated.writtenHost, written.lowercased() != host.description {
            lines.insert("(host read as \(host), as a browser reads it)", at: 1)
        }
        for (index, step) in steps.enumerated() {
            var line = "  \(index + 1). "
            if let rule = step.rule {
                line += "rule \"\(rule.name)\" (\(rule.file):\(rule.line), priority \(rule.priority))"
                if step.url != url { line += " for \(step.url)" }
                line += ": \(rule.effect)"
            } else if let handler = step.handler {
                line += "handler \(handler.id)\(handler.name.isEmpty ? "" : " \"\(handler.name)\"") of \(handler.owner) (priority \(handler.priority), \(handler.scope))"
                if step.url != url { line += " for \(step.url)" }
            }
            lines.append(line)
        }
        let last = steps.last?.result
        if let last, HandlerReply(word: last)?.stops == true {
            lines.append("and the walk would stop there (\(last))")
        } else {
            let finalURL = steps.last(where: { $0.resultURL != nil })?.resultURL ?? url
            let target = finalURL == url ? "it" : finalURL
            lines.append(application.isEmpty
                ? (steps.isEmpty ? "and" : "then, if all pass,") + " no application would open \(target)"
                : (steps.isEmpty ? "" : "then, if all pass, ") + "\(target) would be opened with \(application)" + (why.map { " (\($0))" } ?? ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A step: the handler's or rule's own fields, plus kind, url, result and result-url.
    static func json(_ step: DispatcherClient.ExplainStep) -> String {
        var fields = [("kind", JSON.string(step.rule == nil ? "handler" : "rule"))]
        if let rule = step.rule { fields += self.fields(rule) } else if let handler = step.handler { fields += self.fields(handler) }
        fields += [("url", JSON.string(step.url)), ("result", JSON.string(step.result))]
        if let resultURL = step.resultURL { fields.append(("result-url", JSON.string(resultURL))) }
        if let host = step.host { fields.append(("host", JSON.string(host))) }
        return JSON.object(fields)
    }

    static func json(_ rule: DispatcherClient.RuleInfo) -> String { JSON.object(fields(rule)) }

    static func fields(_ rule: DispatcherClient.RuleInfo) -> [(String, String)] {
        [
            ("name", JSON.string(rule.name)), ("file", JSON.string(rule.file)), ("line", String(rule.line)),
            ("enabled", rule.isEnabled ? "true" : "false"), ("priority", String(rule.priority)),
            ("schemes", JSON.array(rule.schemes.map(JSON.string))), ("hosts", JSON.array(rule.hosts.map(JSON.string))),
            ("paths", JSON.array(rule.paths.map(JSON.string))), ("callers", JSON.array(rule.callers.map(JSON.string))),
            ("match", rule.match.map(JSON.string) ?? "null"), ("effect", JSON.string(rule.effect)),
        ]
    }

    func handlers(json: Bool) async -> ExitStatus {
        guard let (client, connection) = await client() else { return .unreachable }
        defer { connection.close() }
        do {
            let handlers = try await client.handlers()
            if json {
                Console.out(JSON.array(handlers.map(Self.json)) + "\n")
                return .accepted
            }
            guard !handlers.isEmpty else {
                Console.out("no handlers are registered\n")
                return .accepted
            }
            let rows = [["ID", "NAME", "OWNER", "PRIORITY", "SCOPE", "MATCHES"]] + handlers.map { handler in
                let matches = handler.schemes.joined(separator: ",")
                    + (handler.hosts.isEmpty ? "" : " hosts " + handler.hosts.joined(separator: ","))
                    + (handler.paths.isEmpty ? "" : " paths " + handler.paths.joined(separator: ","))
                return [String(handler.id), handler.name.isEmpty ? "-" : handler.name, handler.owner, String(handler.priority), handler.scope, matches]
            }
            Console.out(table(rows))
            return .accepted
        } catch {
            Console.error(DispatcherClient.isUnreachable(error) ? DispatcherClient.unreachableReason(error) : error.message)
            return .unreachable
        }
    }

    func status(json: Bool) async -> ExitStatus {
        guard let (client, connection) = await client() else { return .unreachable }
        defer { connection.close() }
        // Asking for the owner does not start the daemon, unlike calling it.
        guard let owner = try? await connection.owner(of: DispatcherAPI.busName) else {
            Console.out(json ? "{\"running\":false}\n" : "openurld is not running on this session bus\n")
            return .unreachable
        }
        let version = (try? await client.version()) ?? "unknown"
        let count = (try? await client.handlers().count) ?? 0
        if json {
            Console.out(JSON.object([("running", "true"), ("version", JSON.string(version)), ("owner", JSON.string(owner.rawValue)), ("handlers", String(count))]) + "\n")
        } else {
            Console.out("openurld \(version) is running as \(owner), with \(count) handler\(count == 1 ? "" : "s") registered\n")
        }
        return .accepted
    }

    static func json(_ handler: DispatcherClient.HandlerInfo) -> String { JSON.object(fields(handler)) }

    static func fields(_ handler: DispatcherClient.HandlerInfo) -> [(String, String)] {
        [
            ("id", String(handler.id)), ("name", JSON.string(handler.name)), ("owner", JSON.string(handler.owner)),
            ("schemes", JSON.array(handler.schemes.map(JSON.string))), ("hosts", JSON.array(handler.hosts.map(JSON.string))),
            ("paths", JSON.array(handler.paths.map(JSON.string))), ("priority", String(handler.priority)),
            ("scope", JSON.string(handler.scope)),
        ]
    }
}

/// Left-aligned columns separated by two spaces.
func table(_ rows: [[String]]) -> String {
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
        }.joined(separator: "  ").trimmingTrailingSpaces
    }.joined(separator: "\n") + "\n"
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
