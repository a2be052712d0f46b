import CommandLineOptions
import Desktop
import Routing
import Spawn

/// The `openurl` command, as a library so that its parts are testable.
public enum OpenURLCLI {
    /// What `start` left to do.
    public enum Start: Sendable {
        /// Done: exit with this status.
        case finished(Int32)
        /// The rest needs the concurrency runtime.
        case continueAsync(@Sendable () async -> Int32)
    }

    /// Does what needs no concurrency runtime, on the calling thread: usage
    /// errors, `--help`, `--version`, the file-only commands, and opening
    /// URLs through a running daemon (one blocking D-Bus call each). Only
    /// what remains (opening without a daemon, the long-lived and listing
    /// commands) continues asynchronously.
    public static func start(_ arguments: [String], environment: [String: String]) -> Start {
        do throws(UsageError) {
            let (command, invocation) = try Subcommand.invocation(of: arguments, environment: environment)
            return try command.run(invocation)
        } catch {
            Console.error(error.description, hint: error.hint(for: "openurl"))
            return .finished(ExitStatus.usage.rawValue)
        }
    }

    /// Starts `openurl` as its `argv[0]` names it: as `openurl-report-failure
    /// URL REASON` (how the fast front has the full CLI show a failure it
    /// cannot show itself; README, "The openurl command") it only does that; as anything
    /// else it is `openurl` (`start`, given the rest of `arguments`).
    public static func start(program arguments: [String], environment: [String: String]) -> Start {
        guard programName(arguments) == OpenReport.reportFailureProgram else { return start(Array(arguments.dropFirst()), environment: environment) }
        guard arguments.count == 3, let url = try? ValidatedURL(arguments[1]) else {
            Console.error("usage: \(OpenReport.reportFailureProgram) URL REASON (run by openurl itself)")
            return .finished(ExitStatus.usage.rawValue)
        }
        FailureNotifier(environment: environment, quiet: false, standardErrorIsATerminal: false)
            .show(FailureNotice(.notOpened, url: url, reason: arguments[2]))
        return .finished(ExitStatus.accepted.rawValue)
    }

    /// Runs `openurl` with `arguments` (without the program name).
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], environment: [String: String]) async -> Int32 {
        switch start(arguments, environment: environment) {
        case .finished(let status): status
        case .continueAsync(let rest): await rest()
        }
    }
}
