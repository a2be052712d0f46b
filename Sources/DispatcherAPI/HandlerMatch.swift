import DBus
import Routing

extension DispatcherAPI {
    /// Which URLs a handler wants and how it ranks: `RegisterHandler`'s
    /// `a{sv}` spec, and the matching part of each `ListHandlers` entry. The
    /// daemon, `openurl handle`, `HandlerHost` and the `OpenURL` library
    /// (as `URLHandlerMatch`) all read and write it through this type.
    public struct HandlerMatch: Sendable, Equatable {
        /// Whom the handler answers for: `session` (every program's URLs) or
        /// `caller` (only those its own connection opens). One type with the
        /// walk's (`HandlerSpec.Scope`).
        public typealias Scope = HandlerSpec.Scope

        /// Schemes, e.g. `["https", "http"]`, or `["*"]` for every scheme.
        public var schemes: [String]
        /// `example.com` or `*.example.com`; empty means any host.
        public var hosts: [String]
        /// Path globs (`*`, `**`); empty means any path.
        public var paths: [String]
        /// Higher is asked first; default 0.
        public var priority: Int32
        /// Whether the handler is asked for every program's URLs or only its own connection's.
        public var scope: Scope
        /// A name for `openurl handlers` and the log.
        public var name: String

        /// Describes which URLs a handler wants.
        ///
        ///     URLHandlerMatch(schemes: ["https"], hosts: ["*.example.com"], paths: ["/issues/**"], name: "issues")
        public init(schemes: [String], hosts: [String] = [], paths: [String] = [], priority: Int32 = 0, scope: Scope = .session, name: String = "") {
            self.schemes = schemes
            self.hosts = hosts
            self.paths = paths
            self.priority = priority
            self.scope = scope
            self.name = name
        }

        /// The keys of the spec dictionary and their types.
        public static let keys: [String: DBusType] = [
            "schemes": .array(.string), "hosts": .array(.string), "paths": .array(.string),
            "priority": .int32, "scope": .string, "name": .string,
        ]

        /// The spec dictionary, as `RegisterHandler` takes it (empty lists and name left out).
        public var dictionary: [String: Variant] {
            var spec: [String: Variant] = ["schemes": Variant(schemes), "priority": Variant(priority), "scope": Variant(scope.rawValue)]
            if !hosts.isEmpty { spec["hosts"] = Variant(hosts) }
            if !paths.isEmpty { spec["paths"] = Variant(paths) }
            if !name.isEmpty { spec["name"] = Variant(name) }
            return spec
        }

        /// The matching part of a `ListHandlers` entry: every key, empty or not.
        public var listing: [String: Variant] {
            [
                "name": Variant(name), "schemes": Variant(schemes), "hosts": Variant(hosts), "paths": Variant(paths),
                "priority": Variant(priority), "scope": Variant(scope.rawValue),
            ]
        }

        /// Reads a spec dictionary strictly, as the daemon must: a typo never
        /// silently widens a handler.
        /// - Throws: `InvalidArgs` for unknown keys, wrong types, a missing
        ///   `schemes` and an unknown scope. (The values themselves are
        ///   checked by the routing core.)
        public init(decoding dictionary: [String: Variant]) throws(DBusError) {
            for (key, value) in dictionary {
                guard let type = Self.keys[key] else {
                    let known = Self.keys.keys.sorted().joined(separator: ", ")
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
            self.init(
                schemes: schemes, hosts: dictionary["hosts"]?.get([String].self) ?? [],
                paths: dictionary["paths"]?.get([String].self) ?? [], priority: dictionary["priority"]?.get(Int32.self) ?? 0,
                scope: scope, name: dictionary["name"]?.get(String.self) ?? "")
        }

        /// Reads what it can of a `ListHandlers` entry, leniently, as a client may.
        public init(listed entry: [String: Variant]) {
            self.init(
                schemes: entry["schemes"]?.get([String].self) ?? [], hosts: entry["hosts"]?.get([String].self) ?? [],
                paths: entry["paths"]?.get([String].self) ?? [], priority: entry["priority"]?.get(Int32.self) ?? 0,
                scope: entry["scope"]?.get(String.self).flatMap(Scope.init(rawValue:)) ?? .session,
                name: entry["name"]?.get(String.self) ?? "")
        }
    }
}
