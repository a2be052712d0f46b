/// A mistake on a command line: the program prints it with a pointer to its
/// `--help` and exits with status 2.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the word at fault.
    public let description: String
    /// The subcommand whose help explains it, for programs that have them.
    public let topic: String?

    /// A mistake described by `description`, explained in `topic`'s help.
    public init(_ description: String, topic: String? = nil) {
        self.description = description
        self.topic = topic
    }

    /// What `program` prints for it on standard error: the mistake, then
    /// where its help is (`Try 'openurl explain --help' …`).
    public func report(by program: String) -> String {
        "\(program): \(description)\n\(hint(for: program))\n"
    }

    /// `Try 'PROGRAM [TOPIC] --help' for more information.`
    public func hint(for program: String) -> String {
        "Try '\(program)\(topic.map { " " + $0 } ?? "") --help' for more information."
    }
}
