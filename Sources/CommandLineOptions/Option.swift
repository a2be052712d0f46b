/// One option a program takes: its spellings, whether it takes a value,
/// and what it does, declared once for parsing and for `--help`.
public struct Option: Sendable, Hashable {
    /// Every spelling, short first: `["-v", "--verbose"]`.
    public let names: [String]
    /// What the value is called in help (`SECS`); `nil` for a flag.
    public let value: String?
    /// What the option does, for `--help`: one paragraph, wrapped there.
    public let help: String
    /// Whether the option ends parsing at once (`--help`, `--version`), so
    /// that what follows it is not judged.
    public let endsParsing: Bool

    /// An option spelled `names`; a `value` placeholder makes it take one,
    /// given as `--name VALUE` or `--name=VALUE`.
    public init(_ name: String, _ more: String..., value: String? = nil, help: String, endsParsing: Bool = false) {
        self.names = [name] + more
        self.value = value
        self.help = help
        self.endsParsing = endsParsing
    }

    /// The name it is looked up by: its last (long) spelling.
    public var name: String { names[names.count - 1] }

    /// `-h, --help`: every program's.
    public static let help = Option("-h", "--help", help: "print this help and exit", endsParsing: true)
    /// `--version`.
    public static let version = Option("--version", help: "print the version and exit", endsParsing: true)
}
