/// A loaded rule as the contract shows it: `ListRules` lists it and
/// `Explain` shows it (its file and line, whether it is enabled, what it
/// matches and does). A plain value: the rule engine makes it from a `Rule`
/// (`Rules`), `DispatcherAPI` puts it on the bus and reads it back.
public struct RuleInfo: Sendable, Equatable {
    public let name: String
    public let file: String
    public let line: UInt32
    public let isEnabled: Bool
    public let priority: Int32
    public let schemes: [String]
    public let hosts: [String]
    public let paths: [String]
    public let callers: [String]
    public let match: String?
    /// What the rule does; in `Explain`, what it would do to that URL.
    public var effect: String

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
