/// A match rule, as given to the bus's `AddMatch`, and checked again locally.
///
///     MatchRule(sender: .bus, interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
///               arguments: [0: "org.openurld.Dispatcher1"])
public struct MatchRule: Sendable, Hashable, CustomStringConvertible {
    /// The sender to match (`nil`: any).
    public var sender: BusName?
    /// The interface to match (`nil`: any).
    public var interface: InterfaceName?
    /// The member to match (`nil`: any).
    public var member: MemberName?
    /// The object path to match (`nil`: any).
    public var path: ObjectPath?
    /// `argN` matches: the N-th argument must be a string equal to the value (N < 64).
    public var arguments: [Int: String]

    /// A rule matching what is given; what is not given matches anything.
    public init(
        sender: BusName? = nil, interface: InterfaceName? = nil, member: MemberName? = nil,
        path: ObjectPath? = nil, arguments: [Int: String] = [:]
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.arguments = arguments.filter { $0.key >= 0 && $0.key < 64 }
    }

    /// The rule text. Values are single-quoted; a `'` inside a value is written `'\''`.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String) {
            parts.append(key + "='" + value.replacingQuotes() + "'")
        }
        if let sender { add("sender", sender.rawValue) }
        if let interface { add("interface", interface.rawValue) }
        if let member { add("member", member.rawValue) }
        if let path { add("path", path.rawValue) }
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
        return parts.joined(separator: ",")
    }

    /// Whether a signal matches this rule. The bus already filtered by the rule;
    /// checking again sorts signals between several subscriptions. A well-known
    /// `sender` other than the bus itself cannot be checked locally (the message
    /// carries the unique name) and is left to the bus.
    func matches(_ message: Message, arguments values: () -> [Value]) -> Bool {
        if let sender, sender.isUnique || sender == .bus, message.sender != sender { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let path, message.path != path { return false }
        if !arguments.isEmpty {
            let values = values()
            for (index, expected) in arguments {
                guard index < values.count, values[index].string == expected else { return false }
            }
        }
        return true
    }
}

extension String {
    /// Escapes `'` for a match rule: close the quote, an escaped quote, reopen.
    fileprivate func replacingQuotes() -> String {
        split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
    }
}
