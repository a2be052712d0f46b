/// The owners of one well-known name that calls are waiting on, as the bus
/// reports them: first `GetNameOwner`, then each `NameOwnerChanged`. Kept in
/// `ConnectionState`, touched only on the loop queue.
struct OwnerWatch {
    /// The owner last reported, once `GetNameOwner` has answered.
    var owner: String?
    /// Whether the bus has said who owns the name: `owner` is then `nil`
    /// only when nobody does.
    var isKnown = false
    /// The calls to the name now waiting for their replies.
    var waiting: [ObjectIdentifier: PendingCall] = [:]

    /// The name and its new owner (empty: none) when `signal` is the bus's
    /// own `NameOwnerChanged`; what both connection kinds follow.
    static func change(in signal: Message) -> (name: String, newOwner: String)? {
        change(sender: signal.sender, interface: signal.interface, member: signal.member) { () throws(DBusError) in try signal.arguments() }
    }

    /// The same, from a signal's header fields and its body (read only when they match).
    static func change(
        sender: BusName?, interface: InterfaceName?, member: MemberName?, arguments: () throws(DBusError) -> [Value]
    ) -> (name: String, newOwner: String)? {
        guard sender == .bus, member == "NameOwnerChanged", interface == "org.freedesktop.DBus",
            let (name, _, newOwner) = try? arguments().decode(String.self, String.self, String.self)
        else { return nil }
        return (name, newOwner)
    }

    /// The match rule that brings the bus's `NameOwnerChanged` for `name`.
    static func rule(for name: String) -> MatchRule {
        MatchRule(
            sender: .bus, interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
            path: "/org/freedesktop/DBus", arguments: [0: name])
    }
}

extension Connection {
    /// Starts following the owners of the well-known name `pending` is sent
    /// to, before the call itself is sent. Runs on the loop queue.
    ///
    /// The first call to a name asks the bus for a match on its
    /// `NameOwnerChanged` and for its owner, without waiting: the bus handles
    /// this connection's messages in order and answers in order, so both
    /// answers reach us before the call's reply can. Later calls reuse what
    /// was learned. The watch lasts as long as the connection; a connection
    /// calls few well-known names.
    func watchOwner(for pending: PendingCall, of name: String) {
        loop.assertOnQueue()
        let (isNew, owner): (Bool, String?) = state.withLock { state in
            if var watch = state.ownerWatches[name] {
                watch.waiting[ObjectIdentifier(pending)] = pending
                state.ownerWatches[name] = watch
                return (false, watch.owner)
            }
            state.ownerWatches[name] = OwnerWatch(owner: nil, waiting: [ObjectIdentifier(pending): pending])
            return (true, nil)
        }
        if let owner { pending.authority.ownerSeen(owner) }
        guard isNew else { return }
        let busPath: ObjectPath = "/org/freedesktop/DBus"
        if let match = try? Message.methodCall(
            destination: .bus, path: busPath, interface: "org.freedesktop.DBus", member: "AddMatch",
            arguments: [.string(OwnerWatch.rule(for: name).description)])
        {
            // Unanswered: a bus that refuses the rule (LimitsExceeded) leaves
            // activations unseen, and their replies are dropped: fail closed.
            match.setNoReply()
            _ = try? loop.send(match)
        }
        guard let query = try? Message.methodCall(
            destination: .bus, path: busPath, interface: "org.freedesktop.DBus", member: "GetNameOwner",
            arguments: [.string(name)])
        else { return }
        let lookup = PendingCall(connection: self, destination: .bus) { [self] result in
            switch result {
            case .success(let reply):
                if let owner = try? reply.decode(String.self) { ownerAnnounced(owner, of: name) }
            case .failure(let error) where error.name == .nameHasNoOwner:
                // Nobody, for now: a call may still activate it, and the new
                // owner's NameOwnerChanged will say who.
                ownerAnnounced("", of: name)
            case .failure:
                break
            }
        }
        start(lookup, query, timeout: .seconds(25))
    }

    /// Records a new owner of `name` (empty: none) for every call waiting on it. Loop queue.
    func ownerAnnounced(_ owner: String, of name: String) {
        loop.assertOnQueue()
        let waiting: [PendingCall] = state.withLock { state in
            guard state.ownerWatches[name] != nil else { return [] }
            state.ownerWatches[name]!.owner = owner.isEmpty ? nil : owner
            state.ownerWatches[name]!.isKnown = true
            return Array(state.ownerWatches[name]!.waiting.values)
        }
        guard !owner.isEmpty else { return }
        for call in waiting { call.authority.ownerSeen(owner) }
    }

    /// Notes a `NameOwnerChanged` from the bus if it concerns a watched name
    /// (the signal still goes on to subscriptions). Loop queue.
    func noteOwnerChange(_ signal: Message) {
        guard let (name, newOwner) = OwnerWatch.change(in: signal), state.withLock({ $0.ownerWatches[name] != nil }) else { return }
        ownerAnnounced(newOwner, of: name)
    }

    /// Whether the bus said last that nobody owns `name`, which this
    /// connection watches. Loop queue.
    func isKnownUnowned(_ name: String) -> Bool {
        state.withLock { state in state.ownerWatches[name].map { $0.isKnown && $0.owner == nil } ?? false }
    }

    /// Stops recording owners for a call that has its outcome. Loop queue.
    func stopWatchingOwner(for pending: PendingCall) {
        guard let name = pending.authority.watchedName else { return }
        state.withLock { _ = $0.ownerWatches[name]?.waiting.removeValue(forKey: ObjectIdentifier(pending)) }
    }
}
