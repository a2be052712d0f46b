import DispatcherAPI

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
        let command: Command
        do {
            command = try Command.parse(arguments)
        } catch {
            let hint = error.topic.map { "openurl \($0) --help" } ?? "openurl --help"
            Console.error(error.description, hint: "Try '\(hint)' for more information.")
            return .finished(ExitStatus.usage.rawValue)
        }
        if let status = synchronous(command, environment: environment) { return .finished(status.rawValue) }
        switch command {
        case .open(let arguments, let verbose, let ask, let quiet):
            let opener = OpenCommand(environment: environment, verbose: verbose, ask: ask, quiet: quiet)
            guard let urls = opener.validated(arguments) else { return .finished(ExitStatus.usage.rawValue) }
            let throughDaemon = opener.openThroughDaemon(urls)
            guard !throughDaemon.unopened.isEmpty else { return .finished(throughDaemon.status.rawValue) }
            return .continueAsync {
                await opener.openDirectly(throughDaemon.unopened, worst: throughDaemon.status, because: throughDaemon.reason).rawValue
            }
        default:
            return .continueAsync { await run(command, environment: environment) }
        }
    }

    /// The commands that only read and write files, or print: `nil` for the others.
    static func synchronous(_ command: Command, environment: [String: String]) -> ExitStatus? {
        switch command {
        case .help(let topic):
            guard let text = Help.text(for: topic) else {
                Console.error("no help for '\(topic ?? "")'; commands: \(Command.subcommands.joined(separator: ", "))")
                return .usage
            }
            Console.out(text)
            return .accepted
        case .version:
            Console.out("openurl \(DispatcherAPI.version)\n")
            return .accepted
        case .checkRules(let files): return RuleCommands(environment: environment).check(files)
        case .showDefault(let schemes): return DefaultsCommands(environment: environment).show(schemes)
        case .targets(let scheme, let json): return DefaultsCommands(environment: environment).targets(scheme, json: json)
        case .remembered(let json): return RememberedCommands(environment: environment).list(json: json)
        case .forget(let hosts): return RememberedCommands(environment: environment).forget(hosts)
        case .setDefault(let types, let fallback): return DefaultsCommands(environment: environment).set(types, makeDefault: true, fallback: fallback)
        case .unsetDefault(let types): return DefaultsCommands(environment: environment).set(types, makeDefault: false, fallback: nil)
        default: return nil
        }
    }

    /// Runs `openurl` with `arguments` (without the program name).
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], environment: [String: String]) async -> Int32 {
        switch start(arguments, environment: environment) {
        case .finished(let status): status
        case .continueAsync(let rest): await rest()
        }
    }

    /// The commands that need the runtime.
    static func run(_ command: Command, environment: [String: String]) async -> Int32 {
        if let status = synchronous(command, environment: environment) { return status.rawValue }
        let status: ExitStatus
        switch command {
        case .help, .version, .checkRules, .showDefault, .targets, .setDefault, .unsetDefault, .remembered, .forget:
            status = .usage  // done by `synchronous`
        case .open(let urls, let verbose, let ask, let quiet):
            status = await OpenCommand(environment: environment, verbose: verbose, ask: ask, quiet: quiet).run(urls)
        case .explain(let url, let json):
            status = await InspectCommands(environment: environment).explain(url, json: json)
        case .handlers(let json):
            status = await InspectCommands(environment: environment).handlers(json: json)
        case .rules(let json):
            status = await RuleCommands(environment: environment).list(json: json)
        case .detect(let options):
            status = await DetectCommand(environment: environment, options: options).run()
        case .status(let json):
            status = await InspectCommands(environment: environment).status(json: json)
        case .handle(let options):
            status = await HandleCommand(environment: environment, options: options).run()
        }
        return status.rawValue
    }
}
