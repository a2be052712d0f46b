import DBus
import Desktop
import DispatcherAPI
import FileAccess
import Glibc
import Router
import Routing
import Rules
import SafeText
import XDG

/// `openurl URL...`: through the dispatcher, or directly when it is unreachable.
struct OpenCommand {
    let environment: [String: String]
    let verbose: Bool
    /// Show the chooser first (`--ask`).
    var ask = false
    /// Never notify (`--quiet`).
    var quiet = false

    /// Where a failure goes when there is no terminal to tell.
    var notifier: FailureNotifier { FailureNotifier(environment: environment, quiet: quiet) }

    /// Opens each argument: through the daemon when it answers, else directly.
    func run(_ arguments: [String]) async -> ExitStatus {
        guard let urls = validated(arguments) else { return .usage }
        let throughDaemon = openThroughDaemon(urls)
        guard !throughDaemon.unopened.isEmpty else { return throughDaemon.status }
        return await openDirectly(throughDaemon.unopened, worst: throughDaemon.status, because: throughDaemon.reason)
    }

    /// Every argument is checked before any is opened: one mistake opens
    /// nothing. `nil` after saying what is wrong.
    func validated(_ arguments: [String]) -> [ValidatedURL]? {
        var urls: [ValidatedURL] = []
        for argument in arguments {
            do {
                urls.append(try Self.url(from: argument))
            } catch {
                Console.error("\(quoted(argument)): \(error.message)")
                notifier.show(FailureNotice(unreadableLink: argument, reason: error.message))
                return nil
            }
        }
        return urls
    }

    /// The token this run was started with, if it is one the daemon takes.
    /// An inherited token that is malformed (a space, over 1 KiB) only costs
    /// focus: it is dropped (`reportDroppedToken` says so with `-v`), and the
    /// link is still opened.
    var activationToken: String? {
        guard let token = inheritedToken, ActivationToken.problem(token) == nil else { return nil }
        return token
    }

    private var inheritedToken: String? { ActivationToken.inherited { environment[$0] } }

    /// Says, with `-v`, that the inherited token is dropped; once per run,
    /// from `openThroughDaemon`, which every open starts with.
    private func reportDroppedToken() {
        guard verbose, let token = inheritedToken, let problem = ActivationToken.problem(token) else { return }
        Console.error("the inherited activation token \(problem); opening without it")
    }

    /// How long joining the session bus may take before openurld counts as
    /// unreachable (the front's `Contract.connectMilliseconds` too).
    static let connectTimeout: Duration = .seconds(5)

    /// Opens `urls` through the daemon over one blocking connection: one
    /// thread, no event loop, no concurrency runtime. Stops at the first URL
    /// the daemon cannot be reached for.
    /// - Returns: the worst status so far, the URLs not yet opened, and why the daemon was unreachable.
    func openThroughDaemon(_ urls: [ValidatedURL]) -> (status: ExitStatus, unopened: ArraySlice<ValidatedURL>, reason: String) {
        reportDroppedToken()
        let connection: BlockingConnection
        do {
            connection = try BlockingConnection.session(environment: environment, timeout: Self.connectTimeout)
        } catch {
            return (.accepted, urls[...], DispatcherClient.unreachableReason(error))
        }
        defer { connection.close() }
        let token = activationToken
        let notifier = notifier
        var worst = ExitStatus.accepted
        for (index, url) in urls.enumerated() {
            let status: ExitStatus
            do throws(DBusError) {
                let reply = try connection.call(
                    DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.dispatcherInterface, DispatcherAPI.Member.openURLWithOptions,
                    DispatcherAPI.openURLArguments(url.text, activationToken: token, ask: ask, notifyFailure: notifier.isEnabled),
                    timeout: DispatcherAPI.longestWalk)
                let result: OpenURLOutcome
                do {
                    result = try OpenURLOutcome(reply: reply, requested: url.text)
                } catch {
                    // openurld's answer, unreadable: not the caller's mistake, and never "accepted".
                    throw DBusError.failed(OpenReport.unreadableAnswer(error.message))
                }
                report(url, as: result.finalURL, result.outcome, handler: result.handler, application: result.application, message: result.message, via: "openurld")
                status = OpenReport.status(result.outcome, accepted: result.accepted)
            } catch where error.name == .noReply {
                // openurld had the URL and stopped, or never answered, before
                // saying what it decided: it may have opened it already, so
                // it is not opened again here (fail closed, as the daemon does).
                Console.error(OpenReport.stoppedBeforeAnsweringLine(url.text, error.message))
                notifier.show(FailureNotice(.notOpened, url: url, reason: OpenReport.stoppedBeforeAnswering(error.message)))
                status = .unreachable
            } catch where DispatcherClient.isUnreachable(error) {
                return (worst, urls[index...], DispatcherClient.unreachableReason(error))
            } catch {
                Console.error("\(url.text): \(error.message)")
                notifier.show(FailureNotice(.notOpened, url: url, reason: error.message))
                status = OpenReport.status(ofError: error.name.rawValue)
            }
            if status.rawValue > worst.rawValue { worst = status }
        }
        return (worst, [], "")
    }

    /// Opens `urls` without the daemon, as it would: the same router, with
    /// the rules and the fallback and no run-time handlers.
    func openDirectly(_ urls: ArraySlice<ValidatedURL>, worst: ExitStatus, because reason: String) async -> ExitStatus {
        // The session bus, if any, still serves D-Bus activation and systemd scopes for the launch.
        let connection = try? await Connection.session(environment: environment)
        defer { connection?.close() }
        let direct = Direct(environment: environment, connection: connection)
        let remembered = RememberedChoiceFile(base: BaseDirectories(environment: environment))
        let scopes = RememberScopes()
        let router = Router<Never>(
            rules: direct.rules, opener: direct.opener, deadline: DispatcherAPI.walkDeadline,
            chooser: connection.map { BusChooser(connection: $0) } ?? NoChooser(), chooserDeadline: DispatcherAPI.chooserDeadline,
            rememberable: { scopes.targets(for: $0) })
        var worst = worst
        let token = activationToken
        for url in urls {
            if verbose { Console.error("\(reason); opening \(url.text) directly") }
            let status = await openDirectly(url, with: router, token: token, remembering: remembered)
            if status.rawValue > worst.rawValue { worst = status }
        }
        return worst
    }

    /// What opening without the dispatcher needs: read once per run, and
    /// only when the dispatcher cannot be reached.
    private struct Direct {
        let opener: DesktopURLOpener
        /// The rules apply here too, as the daemon would apply them (with no
        /// run-time handlers, and no caller app ID for Callers= to match).
        let rules: RuleSet

        init(environment: [String: String], connection: Connection?) {
            opener = DesktopURLOpener(environment: environment, connection: connection, reaper: ChildReaper())
            rules = RuleSet(RuleFiles.load(from: RuleFiles.directories(BaseDirectories(environment: environment))).rules)
        }
    }

    /// A URL as given, or the `file:` URL of a local path (what a desktop
    /// sends its default browser for an HTML file).
    static func url(from argument: String) throws(RoutingError) -> ValidatedURL {
        guard FileURL.isPath(argument, exists: FileSystem.exists) else { return try ValidatedURL(argument) }
        return try ValidatedURL(FileURL.forPath(argument, workingDirectory: currentDirectory()))
    }

    private func openDirectly(
        _ url: ValidatedURL, with router: Router<Never>, token: String?, remembering file: RememberedChoiceFile
    ) async -> ExitStatus {
        let notifier = notifier
        let route = await router.open(url, caller: "", callerAppID: nil, activationToken: token, asking: .init(first: ask)) { rule, reason in
            Console.error("rule '\(rule.name)' (\(rule.source)) failed: \(reason)")
            notifier.show(FailureNotice(.ruleFailed(rule.name), url: url, reason: reason))
        }
        if let choice = route.remembered {
            do { try file.remember(choice) } catch { Console.error("cannot remember the choice in \(file.path): \(error)") }
        }
        let via = route.rule != nil || route.outcome == .undecided ? "the rules" : "the system default"
        let why = route.rule.map { "rule '\($0)'" + (route.message.map { ": " + $0 } ?? "") } ?? route.message
        report(url, as: route.finalURL.text, route.outcome, handler: nil, application: route.application, message: why, via: via)
        switch route.outcome {
        case .handled, .opened, .discarded: break
        case .refused, .undecided, .noApplication, .launchFailed:
            // Without the daemon, openurl is the one to say it (a rule that failed, too, was said above).
            notifier.show(FailureNotice(.notOpened, url: url, reason: why ?? route.outcome.rawValue))
        }
        return ExitStatus(route.outcome, path: .directly)
    }

    /// Rejections always go to standard error; with --verbose, successes too.
    private func report(
        _ url: ValidatedURL, as finalURL: String? = nil, _ outcome: Outcome?, handler: UInt32?, application: String?, message: String?, via: String
    ) {
        guard let line = OpenReport.line(
            url.text, as: finalURL, outcome, handler: handler, application: application, message: message, via: via, verbose: verbose)
        else { return }
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
    return EscapedBytes.decode(buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
}
