import DispatcherAPI

/// The `openurl` command, as a library so that its parts are testable.
public enum OpenURLCLI {
    /// Runs `openurl` with `arguments` (without the program name).
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], environment: [String: String]) async -> Int32 {
        let command: Command
        do {
            command = try Command.parse(arguments)
        } catch {
            let hint = error.topic.map { "openurl \($0) --help" } ?? "openurl --help"
            Console.error("\(error.description)\nTry '\(hint)' for more information.")
            return ExitStatus.usage.rawValue
        }
        let status: ExitStatus
        switch command {
        case .help(let topic):
            guard let text = Help.text(for: topic) else {
                Console.error("no help for '\(topic ?? "")'; commands: \(Command.subcommands.joined(separator: ", "))")
                return ExitStatus.usage.rawValue
            }
            Console.out(text)
            status = .accepted
        case .version:
            Console.out("openurl \(DispatcherAPI.version)\n")
            status = .accepted
        case .open(let urls, let verbose):
            status = await OpenCommand(environment: environment, verbose: verbose).run(urls)
        case .explain(let url, let json):
            status = await InspectCommands(environment: environment).explain(url, json: json)
        case .handlers(let json):
            status = await InspectCommands(environment: environment).handlers(json: json)
        case .rules(let json):
            status = await RuleCommands(environment: environment).list(json: json)
        case .checkRules(let files):
            status = RuleCommands(environment: environment).check(files)
        case .detect(let options):
            status = await DetectCommand(environment: environment, options: options).run()
        case .status(let json):
            status = await InspectCommands(environment: environment).status(json: json)
        case .handle(let options):
            status = await HandleCommand(environment: environment, options: options).run()
        case .showDefault(let schemes):
            status = DefaultsCommands(environment: environment).show(schemes)
        case .setDefault(let types):
            status = DefaultsCommands(environment: environment).set(types, makeDefault: true)
        case .unsetDefault(let types):
            status = DefaultsCommands(environment: environment).set(types, makeDefault: false)
        }
        return status.rawValue
    }
}
