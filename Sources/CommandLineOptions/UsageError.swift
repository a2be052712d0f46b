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
}
