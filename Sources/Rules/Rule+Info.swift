import Routing

extension RuleInfo {
    /// What a loaded rule says about itself.
    public init(_ rule: Rule) {
        self.init(
            name: rule.name, file: rule.source.path, line: UInt32(clamping: rule.source.line), isEnabled: rule.isEnabled,
            priority: rule.spec.priority, schemes: rule.spec.schemes, hosts: rule.spec.hosts.map(\.description),
            paths: rule.spec.paths.map(\.description), callers: rule.callers.map(\.description),
            match: rule.pattern?.pattern, effect: rule.effectDescription)
    }
}
