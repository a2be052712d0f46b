import DBus
import DispatcherAPI
import Routing

extension HandlerSpec {
    /// Reads a spec from `RegisterHandler`'s dictionary (the contract's
    /// `HandlerMatch`), then validates its values.
    /// - Throws: `InvalidArgs` for unknown keys, wrong types and invalid values.
    init(dbus dictionary: [String: Variant]) throws(DBusError) {
        let match = try DispatcherAPI.HandlerMatch(decoding: dictionary)
        do {
            try self.init(
                schemes: match.schemes, hosts: match.hosts, paths: match.paths, priority: match.priority,
                scope: match.scope == .caller ? .caller : .session, name: match.name)
        } catch {
            throw .invalidArgs(error.message)
        }
    }
}

extension Handler where Payload == HandlerEndpoint {
    /// The `a{sv}` entry `ListHandlers` returns (`Explain` adds to it).
    var dbusDescription: Value { descriptionEntries.dbusValue }

    var descriptionEntries: [String: Variant] { info.listing }

    /// What `ListHandlers` and `Explain` say of it.
    var info: DispatcherAPI.HandlerInfo {
        DispatcherAPI.HandlerInfo(id: id, owner: owner, match: DispatcherAPI.HandlerMatch(
            schemes: spec.schemes, hosts: spec.hosts.map(\.description), paths: spec.paths.map(\.description), priority: spec.priority,
            scope: spec.scope == .caller ? .caller : .session, name: spec.name))
    }
}
