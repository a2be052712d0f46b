/// A loaded rule as the contract shows it: `ListRules` lists it and
/// `Explain` shows it (its file and line, whether it is enabled, what it
/// matches and does). A plain value: the rule engine makes it from a `Rule`
/// (`Rules`), `DispatcherAPI` puts it on the bus and reads it back.
public struct RuleInfo: Sendable, Equatable {
    /// The rule's name, from its `[Rule NAME]` group.
    public let name: String
    /// The file it was read from.
    public let file: String
    /// The line its group starts on.
    public let line: UInt32
    /// Whether it takes part in walks (`Enabled=`, true unless the file says false).
    public let isEnabled: Bool
    /// Higher is asked first.
    public let priority: Int32
    /// The schemes it matches.
    public let schemes: [String]
    /// The host patterns it matches (empty: any).
    public let hosts: [String]
    /// The path globs it matches (empty: any).
    public let paths: [String]
    /// Globs over the calling application's ID (`Callers=`; empty: anyone).
    public let callers: [String]
    /// Its `Match=` regular expression, if it has one.
    public let match: String?
    /// What the rule does; in `Explain`, what it would do to that URL.
    public var effect: String

    /// A rule as the contract shows it, from its parts.
    public init(name: String, file: String, line: UInt32, isEnabled: Bool, priority: Int32, schemes: [String],
                hosts: [String], paths: [String], callers: [String], match: String?, effect: String) {
        self.name = name
        self.file = file
        self.line = line
        self.isEnabled = isEnabled
        self.priority = priority
        self.schemes = schemes
        self.hosts = hosts
        self.paths = paths
        self.callers = callers
        self.match = match
        self.effect = effect
    }
}
