/// Who may answer one method call, and what their answer counts as.
///
/// The wire matches a reply to its call by serial alone, so any peer on the
/// bus can answer a call whose serial it guessed. Every call this module
/// makes, asynchronous or blocking, is judged here before its reply is used:
///
/// - a call to a unique name may be answered by that connection only;
/// - a call to a well-known name may be answered by a connection that owned
///   the name at some time from just before the call was sent until the reply
///   arrived: the owner when it was sent, or, when the call activated its
///   destination (or the name changed hands meanwhile), the connection that
///   took the name. Owners are learned from the bus (`GetNameOwner`, then
///   `NameOwnerChanged`), which reaches us in order, before the reply;
/// - a call to the bus driver may be answered by the bus only;
/// - the bus may always answer with an error (it reports for a peer that
///   left, timed out, or could not be started);
/// - errors that mean "nobody is there" (`ServiceUnknown`, `NameHasNoOwner`,
///   `NoReply`, the `Spawn.*` family) count as such only from the bus driver;
///   from a peer they are that peer's failure
///   (`Failed`), so no peer can make a caller believe a service is absent.
///
/// A peer that takes a free well-known name is that name's owner, as far as
/// the bus is concerned; that is the bus's policy, outside what a reply check
/// can decide (docs/security.md).
struct ReplyAuthority: Sendable {
    enum Destination: Sendable, Equatable {
        case bus
        case unique(String)
        case wellKnown(String)
    }

    /// What to do with a reply.
    enum Verdict: Equatable {
        /// The reply is genuine; use it as it is.
        case accept
        /// The reply is genuine but claims what only the bus may say: use this error instead.
        case failure(DBusError)
        /// Not from anyone the call may be answered by: drop it and keep waiting.
        case drop
    }

    let destination: Destination
    /// The owners of a well-known destination seen while the call is pending.
    private(set) var owners: Set<String> = []

    init(destination: BusName?) {
        switch destination?.rawValue {
        case nil: self.destination = .bus
        case BusName.bus.rawValue?: self.destination = .bus
        case let name? where name.hasPrefix(":"): self.destination = .unique(name)
        case let name?: self.destination = .wellKnown(name)
        }
    }

    /// The well-known name whose owners must be followed, if any.
    var watchedName: String? {
        if case .wellKnown(let name) = destination { return name }
        return nil
    }

    /// Records that `owner` owned the destination while the call was pending.
    mutating func ownerSeen(_ owner: String) {
        owners.insert(owner)
    }

    /// Judges `reply`, given its sender.
    func verdict(sender: String?, kind: Message.Kind, errorName: ErrorName?, message: () -> String) -> Verdict {
        // The bus fills in the sender of every message it routes, its own
        // included, and nothing is made locally (a call's deadline is the
        // connection's, not a message): a reply without one is dropped.
        guard let sender else { return .drop }
        if sender == BusName.bus.rawValue {
            if kind == .error { return .accept }
            return destination == .bus ? .accept : .drop
        }
        let fromAnswerer: Bool = switch destination {
        case .bus: false
        case .unique(let name): sender == name
        case .wellKnown: owners.contains(sender)
        }
        guard fromAnswerer else { return .drop }
        if kind == .error, let errorName, errorName.isBusOnly {
            return .failure(.failed("the peer answered with \(errorName), which only the bus may send: \(message())"))
        }
        return .accept
    }

    /// Judges a whole message.
    func verdict(for reply: Message) -> Verdict {
        verdict(sender: reply.sender?.rawValue, kind: reply.kind, errorName: reply.errorName) {
            reply.error?.message ?? ""
        }
    }
}

extension ErrorName {
    /// Errors that say nobody is there, which only the bus driver may send.
    var isBusOnly: Bool {
        self == .serviceUnknown || self == .nameHasNoOwner || self == .noReply
            || rawValue.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
    }
}
