import DBus
import Rules

extension DispatcherAPI {
    /// A loaded rule, as `ListRules` lists it and `Explain` shows it (its
    /// file and line, whether it is enabled, what it matches and does).
    /// The daemon writes it from a `Rule`, `openurl rules` without a daemon
    /// makes the same from the files, and clients read it back.
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

        /// What a loaded rule says about itself.
        public init(_ rule: Rule) {
            self.init(
                name: rule.name, file: rule.source.path, line: UInt32(clamping: rule.source.line), isEnabled: rule.isEnabled,
                priority: rule.spec.priority, schemes: rule.spec.schemes, hosts: rule.spec.hosts.map(\.description),
                paths: rule.spec.paths.map(\.description), callers: rule.callers.map(\.description),
                match: rule.pattern?.pattern, effect: rule.effectDescription)
        }

        /// The `ListRules` entry.
        public var listing: [String: Variant] {
            var entry: [String: Variant] = [
                "name": Variant(name), "file": Variant(file), "line": Variant(line), "enabled": Variant(isEnabled),
                "priority": Variant(priority), "schemes": Variant(schemes), "hosts": Variant(hosts), "paths": Variant(paths),
                "callers": Variant(callers), "effect": Variant(effect),
            ]
            if let match { entry["match"] = Variant(match) }
            return entry
        }

        /// Reads an entry leniently, as a client may.
        public init(listed entry: [String: Variant]) {
            self.init(
                name: entry["name"]?.get(String.self) ?? "", file: entry["file"]?.get(String.self) ?? "",
                line: entry["line"]?.get(UInt32.self) ?? 0, isEnabled: entry["enabled"]?.get(Bool.self) ?? true,
                priority: entry["priority"]?.get(Int32.self) ?? 0, schemes: entry["schemes"]?.get([String].self) ?? [],
                hosts: entry["hosts"]?.get([String].self) ?? [], paths: entry["paths"]?.get([String].self) ?? [],
                callers: entry["callers"]?.get([String].self) ?? [], match: entry["match"]?.get(String.self),
                effect: entry["effect"]?.get(String.self) ?? "")
        }
    }
}
