import DBus
import DispatcherAPI
import Routing
import Rules

extension Rule {
    /// The `a{sv}` entry `ListRules` returns (`Explain` adds to it).
    var dbusDescription: Value { descriptionEntries.dbusValue }

    var descriptionEntries: [String: Variant] {
        var entries: [String: Variant] = [
            "name": Variant(name), "file": Variant(source.path), "line": Variant(UInt32(clamping: source.line)),
            "enabled": Variant(isEnabled), "priority": Variant(spec.priority),
            "schemes": Variant(spec.schemes), "hosts": Variant(spec.hosts.map(\.description)),
            "paths": Variant(spec.paths.map(\.description)), "callers": Variant(callers.map(\.description)),
            "effect": Variant(effectDescription),
        ]
        if let pattern { entries["match"] = Variant(pattern.pattern) }
        return entries
    }
}
