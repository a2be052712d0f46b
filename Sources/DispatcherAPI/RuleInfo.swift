import DBus
import Routing

extension DispatcherAPI {
    /// A loaded rule, as `ListRules` lists it and `Explain` shows it.
    public typealias RuleInfo = Routing.RuleInfo
}

extension RuleInfo {
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
