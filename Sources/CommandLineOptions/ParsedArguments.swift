/// A command line read against a list of `Option`s: the options given,
/// the other words in order, and a command after `--` where one is taken.
public struct ParsedArguments: Sendable, Equatable {
    /// Each option given, by its `Option.name`, with its values in order
    /// (an empty string for each use of a flag). A list, not a dictionary:
    /// a program takes a handful of options, and the fast front, which
    /// compiles this file with Embedded Swift, would link libm for a hash table.
    private var given: [Given] = []
    private struct Given: Sendable, Equatable {
        let name: String
        var values: [String]
    }
    /// The words that are not options, in order.
    public private(set) var positionals: [String] = []
    /// The words of the command, when the syntax takes one (`-- COMMAND [ARG]...`).
    public private(set) var command: [String]?
    /// The option that ended parsing (`--help`), if one did.
    public private(set) var ending: String?

    /// Whether `option` was given.
    public func has(_ option: Option) -> Bool { given.contains { $0.name == option.name } }
    /// The values `option` was given, in order.
    public func values(of option: Option) -> [String] { given.first { $0.name == option.name }?.values ?? [] }
    /// The value `option` was given.
    /// - Throws: `UsageError` when it was given more than once.
    public func value(of option: Option, topic: String? = nil) throws(UsageError) -> String? {
        let given = values(of: option)
        guard given.count <= 1 else { throw UsageError("\(option.name) is given more than once", topic: topic) }
        return given.first
    }

    /// What a word that is not an option, and `--`, mean.
    public enum Words: Sendable, Equatable {
        /// None: every word is an option, and any other is an unknown argument.
        case none
        /// Operands; after `--`, every word is one, even `-x`.
        case operands
        /// `-- COMMAND [ARG]...`: the words after `--` are a command, kept whole.
        case commandAfterDashes
        /// The first operand, or the words after `--`, start a command kept whole.
        case commandAtFirstOperand
    }

    /// Reads `arguments` (without the program name) against `options`.
    ///
    /// An option takes its value as the next word or after `=`
    /// (`--idle-exit 5`, `--idle-exit=5`); `-` alone is an operand.
    /// - Parameter hint: said after "unknown option 'X'" (how to pass such a word as an operand).
    /// - Throws: `UsageError` for an unknown option, a missing value, a value given to a flag, or an operand where none is taken.
    public init(
        _ arguments: [String], options: [Option], words: Words = .operands, topic: String? = nil, hint: String? = nil
    ) throws(UsageError) {
        var rest = arguments[...]
        while let word = rest.popFirst() {
            if word == "--" {
                switch words {
                case .none: throw UsageError("unknown argument '--'", topic: topic)
                case .operands: positionals += rest
                case .commandAfterDashes, .commandAtFirstOperand: command = Array(rest)
                }
                return
            }
            guard word.hasPrefix("-"), word != "-" else {
                if words == .none { throw UsageError("unknown argument '\(word)'", topic: topic) }
                if case .commandAtFirstOperand = words {
                    command = [word] + rest
                    return
                }
                positionals.append(word)
                continue
            }
            let (name, inline) = Self.split(word)
            guard let option = options.last(where: { $0.names.contains(name) }) else {
                if words == .none { throw UsageError("unknown argument '\(word)'", topic: topic) }
                throw UsageError("unknown option '\(word)'" + (hint.map { " (\($0))" } ?? ""), topic: topic)
            }
            let value: String
            if option.value == nil {
                guard inline == nil else { throw UsageError("\(name) takes no value", topic: topic) }
                value = ""
            } else if let inline {
                value = inline
            } else if let next = rest.popFirst() {
                value = next
            } else {
                throw UsageError("\(name) needs a value", topic: topic)
            }
            if let index = given.firstIndex(where: { $0.name == option.name }) {
                given[index].values.append(value)
            } else {
                given.append(Given(name: option.name, values: [value]))
            }
            if option.endsParsing {
                ending = option.name
                return
            }
        }
    }

    /// `--name=value` as the name and the value; any other word as itself.
    static func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
