import DBus
import DispatcherAPI
import Routing

/// Where a run-time handler lives: the object its owner exported.
public struct HandlerEndpoint: Sendable, Equatable {
    public let path: ObjectPath
}

/// The spec keys of `RegisterHandler`, as an `a{sv}` dictionary.
extension HandlerSpec {
    static let specKeys: [String: DBusType] = [
        "schemes": .array(.string), "hosts": .array(.string), "paths": .array(.string),
        "priority": .int32, "scope": .string, "name": .string,
    ]

    /// Reads a spec from `RegisterHandler`'s dictionary.
    /// - Throws: `InvalidArgs` for unknown keys, wrong types and invalid values.
    init(dbus dictionary: [String: Variant]) throws(DBusError) {
        for (key, value) in dictionary {
            guard let type = Self.specKeys[key] else {
                let known = Self.specKeys.keys.sorted().joined(separator: ", ")
                throw .invalidArgs("unknown spec key '\(key.prefix(64))' (known keys: \(known))")
            }
            guard value.value.type == type else {
                throw .invalidArgs("spec key '\(key)' must have type '\(type)', not '\(value.value.type)'")
            }
        }
        guard let schemes = dictionary["schemes"]?.get([String].self) else {
            throw .invalidArgs("spec key 'schemes' (as) is required")
        }
        var scope = Scope.session
        if let text = dictionary["scope"]?.get(String.self) {
            guard let parsed = Scope(rawValue: text) else {
                throw .invalidArgs("spec key 'scope' must be 'session' or 'caller', not '\(text.prefix(64))'")
            }
            scope = parsed
        }
        do {
            try self.init(
                schemes: schemes, hosts: dictionary["hosts"]?.get([String].self) ?? [],
                paths: dictionary["paths"]?.get([String].self) ?? [],
                priority: dictionary["priority"]?.get(Int32.self) ?? 0, scope: scope,
                name: dictionary["name"]?.get(String.self) ?? "")
        } catch {
            throw .invalidArgs(error.message)
        }
    }
}

extension Handler where Payload == HandlerEndpoint {
    /// The `a{sv}` entry `ListHandlers` returns (`Explain` adds to it).
    var dbusDescription: Value { descriptionEntries.dbusValue }

    var descriptionEntries: [String: Variant] {
        [
            "id": Variant(id), "name": Variant(spec.name), "owner": Variant(owner),
            "schemes": Variant(spec.schemes), "hosts": Variant(spec.hosts.map(\.description)),
            "paths": Variant(spec.paths.map(\.description)), "priority": Variant(spec.priority),
            "scope": Variant(spec.scope.rawValue),
        ]
    }
}
