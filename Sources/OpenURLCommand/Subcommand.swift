import CommandLineOptions

/// One `openurl` command, declared once: its name, options and help, and the
/// runner that checks its words and does its work. Parsing, `--help`, the
/// commands list, "did you mean" and the tests all read `Subcommand.all`.
struct Subcommand: Sendable {
    /// What a runner is given.
    struct Invocation: Sendable {
        let arguments: ParsedArguments
        let environment: [String: String]
        let topic: String

        /// Whether `option` was given.
        func has(_ option: Option) -> Bool { arguments.has(option) }
        /// The words that are not options.
        var operands: [String] { arguments.positionals }
        /// A usage error about this command.
        func mistake(_ description: String) -> UsageError { UsageError(description, topic: topic) }
    }

    typealias Runner = @Sendable (Invocation) throws(UsageError) -> OpenURLCLI.Start

    let name: String
    /// How the commands list of `openurl --help` writes it (`explain URL`).
    let synopsis: String
    /// What it does, for that list.
    let summary: String
    let options: [Option]
    /// What its other words are: operands, or a command after `--`.
    let words: ParsedArguments.Words
    /// Its `--help` page (several commands may share one).
    let page: Help.Page
    /// Checks what was given (a `UsageError` before anything is done) and
    /// does the work, on the calling thread or, when it needs the runtime, after.
    let run: Runner

    init(_ name: String, _ synopsis: String, _ summary: String, options: [Option] = [], words: ParsedArguments.Words = .operands,
         page: Help.Page, run: @escaping Runner) {
        (self.name, self.synopsis, self.summary, self.options, self.words, self.page, self.run) =
            (name, synopsis, summary, options, words, page, run)
    }

    /// The command called `name`.
    static func named(_ name: String) -> Subcommand? { all.first { $0.name == name } }

    /// The options of every command sharing `page`, in the table's order.
    static func options(on page: Help.Page) -> [Option] {
        var seen = Set<String>()
        return ([open] + all).filter { $0.page.name == page.name }.flatMap(\.options).filter { seen.insert($0.name + $0.help).inserted }
    }

    /// Parses `arguments` (without the program name) and returns what to run.
    static func invocation(of arguments: [String], environment: [String: String]) throws(UsageError) -> (Subcommand, Invocation) {
        guard let first = arguments.first else { throw OpenCommandLine.noURLGiven }
        let command: Subcommand
        var rest = arguments
        if let named = named(first) {
            command = named
            rest.removeFirst()
            // `--help` anywhere before a `--` asks for the page, whatever else is there.
            let beforeDashes = rest.prefix { $0 != "--" || command.words == .operands }
            if beforeDashes.contains(where: { $0 == "--help" || $0 == "-h" }) {
                return (help, Invocation(arguments: try ParsedArguments([command.name], options: []), environment: environment, topic: "help"))
            }
        } else if OpenCommandLine.looksLikeACommand(first) {
            let hint = closestName(to: first).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("unknown command '\(first)'\(hint); to open a file of that name, write './\(first)'")
        } else {
            command = open
        }
        let parsed = command.name == open.name
            ? try OpenCommandLine.parseOpen(rest)
            : try ParsedArguments(rest, options: command.options, words: command.words, topic: command.name)
        return (command, Invocation(arguments: parsed, environment: environment, topic: command.name))
    }

    /// The command name at most two edits away from `word`, for "did you mean".
    static func closestName(to word: String) -> String? {
        all.map { (name: $0.name, distance: editDistance(Array(word.utf8), Array($0.name.utf8))) }
            .filter { $0.distance <= 2 }
            .min { $0.distance < $1.distance }?.name
    }

    /// Levenshtein distance, counting a swap of two neighbours as one edit.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
