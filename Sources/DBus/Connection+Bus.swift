/// A change of a bus name's owner, from the bus's `NameOwnerChanged` signal.
public struct NameOwnerChange: Sendable, Equatable {
    /// The name whose owner changed.
    public let name: BusName
    /// The previous owner, `nil` when the name had none.
    public let oldOwner: BusName?
    /// The new owner, `nil` when the name is now unowned (for a unique name: the connection left).
    public let newOwner: BusName?

    /// A change of `name` from `oldOwner` to `newOwner`.
    public init(name: BusName, oldOwner: BusName?, newOwner: BusName?) {
        self.name = name
        self.oldOwner = oldOwner
        self.newOwner = newOwner
    }
}

/// The bus's answer to `RequestName`.
public enum NameRequestResult: UInt32, Sendable {
    case primaryOwner = 1, inQueue = 2, exists = 3, alreadyOwner = 4
}

extension Connection {
    /// Calls a method of the bus driver (`org.freedesktop.DBus`) and returns its reply arguments.
    public func callBus(_ member: MemberName, _ arguments: [Value] = [], timeout: Duration = .seconds(25))
        async throws(DBusError) -> [Value]
    {
        try await call(.bus, "/org/freedesktop/DBus", "org.freedesktop.DBus", member, arguments, timeout: timeout)
    }

    /// Asks the bus for a well-known name.
    ///
    /// - Parameters:
    ///   - allowReplacement: let a later `replaceExisting` request take the name from us.
    ///   - replaceExisting: take the name from its owner, if that owner allowed replacement.
    ///   - queue: wait in the bus's queue when the name is taken (otherwise `exists` is returned).
    public func requestName(
        _ name: BusName, allowReplacement: Bool = false, replaceExisting: Bool = false, queue: Bool = false
    ) async throws(DBusError) -> NameRequestResult {
        // The bus would refuse it too; said here, without a round trip, and never a crash.
        guard !name.isUnique else { throw .invalidArgs("a unique name (\(name)) cannot be requested; only well-known names can") }
        let flags: UInt32 = (allowReplacement ? 1 : 0) | (replaceExisting ? 2 : 0) | (queue ? 0 : 4)
        let reply = try await callBus("RequestName", [.string(name.rawValue), .uint32(flags)]).decode(UInt32.self)
        guard let result = NameRequestResult(rawValue: reply) else {
            throw .failed("the bus answered RequestName with unknown code \(reply)")
        }
        return result
    }

    /// Gives a well-known name back to the bus.
    public func releaseName(_ name: BusName) async throws(DBusError) {
        _ = try await callBus("ReleaseName", [.string(name.rawValue)])
    }

    /// The unique name owning `name`, or `nil` when nobody owns it.
    public func owner(of name: BusName) async throws(DBusError) -> BusName? {
        do {
            let owner = try await callBus("GetNameOwner", [.string(name.rawValue)]).decode(String.self)
            return BusName(trusted: owner)
        } catch where error.name == .nameHasNoOwner {
            return nil
        }
    }

    /// Follows `NameOwnerChanged` for one name, or for every name when `name` is `nil`.
    ///
    /// `handler` runs on the loop queue, in order with incoming method calls:
    /// a call from a connection is always seen before the signal saying it left.
    public func watchNameOwners(
        of name: BusName? = nil, handler: @escaping @Sendable (NameOwnerChange) -> Void
    ) async throws(DBusError) -> SignalSubscription {
        let rule = MatchRule(
            sender: .bus, interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
            path: "/org/freedesktop/DBus", arguments: name.map { [0: $0.rawValue] } ?? [:])
        return try await subscribe(to: rule) { signal in
            guard let (name, old, new) = try? signal.arguments.decode(String.self, String.self, String.self),
                let busName = BusName(validating: name)
            else { return }
            handler(
                NameOwnerChange(
                    name: busName, oldOwner: old.isEmpty ? nil : BusName(validating: old),
                    newOwner: new.isEmpty ? nil : BusName(validating: new)))
        }
    }
}
