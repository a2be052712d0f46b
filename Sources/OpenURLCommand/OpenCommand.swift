#if canImport(Glibc)
import DBus
import Desktop
import DispatcherAPI
import Glibc
import Router
import Routing
import Rules
import XDG
#endif

/// `openurl URL...`: through the dispatcher, or directly when it is unreachable.
struct OpenCommand {
    let environment: [String: String]
    let verbose: Bool

    func run(_ arguments: [String]) async -> ExitStatus {
        // Every argument is checked before any is opened: one mistake opens nothing.
        var urls: [ValidatedURL] = []
        for argument in arguments {
            do {
                urls.append(try Self.url(from: argument))
            } catch {
                Console.error("\(quoted(argument)): \(error.message)")
                return .usage
            }
        }
        let token = environment["XDG_ACTIVATION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["DESKTOP_STARTUP_ID"]
        let connection = try? await Connection.session(environment: environment)
        defer { connection?.close() }
        var worst = ExitStatus.accepted
        var direct: Direct?
        for url in urls {
            let status = await open(url, token: token, connection: connection, direct: &direct)
            if status.rawValue > worst.rawValue { worst = status }
        }
        return worst
    }

    /// What opening without the dispatcher needs: read once per run, and
    /// only when the dispatcher cannot be reached.
    private struct Direct {
        let fallback: DesktopSystemDefault
        /// The rules apply here too, as the daemon would apply them (with no
        /// run-time handlers, and no caller app ID for Callers= to match).
        let rules: RuleSet

        init(environment: [String: String], connection: Connection?) {
            fallback = DesktopSystemDefault(environment: environment, connection: connection, reaper: ChildReaper())
            rules = RuleSet(RuleFiles.load(from: RuleFiles.directories(BaseDirectories(environment: environment))).rules)
        }
    }

    /// A URL as given, or the `file:` URL of a local path (what a desktop
    /// sends its default browser for an HTML file).
    static func url(from argument: String) throws(RoutingError) -> ValidatedURL {
        guard FileURL.isPath(argument, exists: { access($0, F_OK) == 0 }) else { return try ValidatedURL(argument) }
        return try ValidatedURL(FileURL.forPath(argument, workingDirectory: currentDirectory()))
    }

    private func open(_ url: ValidatedURL, token: String?, connection: Connection?, direct: inout Direct?) async -> ExitStatus {
        var unreachableBecause = "openurld is not reachable (no session bus)"
        if let connection {
            do {
                let result = try await DispatcherClient(connection: connection).open(url.text, activationToken: token)
                report(url, as: result.url, result.outcome, handler: result.handler, application: result.application, message: result.message, via: "openurld")
                return result.accepted ? .accepted : .rejected
            } catch where DispatcherClient.isUnreachable(error) {
                unreachableBecause = DispatcherClient.unreachableReason(error)
            } catch {
                Console.error("\(url.text): \(error.message)")
                return error.name == .invalidArgs ? .usage : .unreachable
            }
        }
        if verbose { Console.error("\(unreachableBecause); opening \(url.text) directly") }
        if direct == nil { direct = Direct(environment: environment, connection: connection) }
        // The daemon's router, without run-time handlers: the same rules, deadline and fallback.
        let router = Router<Never>(rules: direct!.rules, fallback: direct!.fallback, deadline: DispatcherAPI.walkDeadline)
        let route = await router.open(url, caller: "", callerAppID: nil, activationToken: token) { rule, reason in
            Console.error("rule '\(rule.name)' (\(rule.source)) failed: \(reason)")
        }
        let via = route.rule != nil || route.outcome == .undecided ? "the rules" : "the system default"
        let why = route.rule.map { "rule '\($0)'" + (route.message.map { ": " + $0 } ?? "") } ?? route.message
        report(url, as: route.finalURL.text, route.outcome, handler: nil, application: route.application, message: why, via: via)
        switch route.outcome {
        case .handled, .opened: return .accepted
        case .discarded, .refused, .undecided: return .rejected
        case .noApplication, .launchFailed: return .unreachable
        }
    }

    /// Rejections always go to standard error; with --verbose, successes too.
    /// - Parameter finalURL: the URL as the walk left it, shown after an arrow when handlers or rules rewrote it.
    private func report(
        _ url: ValidatedURL, as finalURL: String? = nil, _ outcome: Outcome?, handler: UInt32?, application: String?, message: String?, via: String
    ) {
        let accepted = outcome?.isAccepted ?? false
        guard verbose || !accepted else { return }
        let shown = finalURL.map { $0 == url.text ? url.text : "\(url.text) → \($0)" } ?? url.text
        var line = "\(shown): \(outcome?.rawValue ?? "unknown outcome") (via \(via))"
        if let handler { line += ", handler \(handler)" }
        if let application { line += ", \(application)" }
        if let message { line += ": \(message)" }
        Console.error(line)
    }
}

/// Quotes user input for an error message, cut to a readable length.
func quoted(_ text: String) -> String {
    let shown = text.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }.joined()
    return "'" + shown + (text.unicodeScalars.count > 80 ? "…" : "") + "'"
}

/// The working directory, as the kernel has it (`$PWD` may be stale).
func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "/" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
