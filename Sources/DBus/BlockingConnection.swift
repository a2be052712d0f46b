import CDBus

/// A bus connection for one-shot clients such as `openurl URL`: each call
/// blocks the calling thread until its reply or its timeout. It starts no
/// thread, no event loop and no concurrency runtime, so a short-lived
/// process does one round trip and exits. Incoming calls and signals are
/// never handled; long-lived programs (and the daemon) use `Connection`.
///
/// Not `Sendable`: use it from the thread that made it, then `close()` it.
public final class BlockingConnection {
    private var raw: OpaquePointer?

    /// The unique name the bus gave this connection, e.g. `:1.42`.
    public private(set) var uniqueName: BusName?

    /// Connects to the bus at `address` and registers (`Hello`) within `timeout`.
    public init(address: String, timeout: Duration = .seconds(25)) throws(DBusError) {
        let raw = try LibDBus.openPrivate(address)
        self.raw = raw
        do {
            let name = try call(
                .bus, "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", timeout: timeout).decode(String.self)
            _ = dbus_bus_set_unique_name(raw, name)
            uniqueName = BusName(trusted: name)
        } catch {
            close()
            throw error
        }
    }

    /// Connects to the session bus, found as `Connection.session` finds it.
    public static func session(environment: [String: String], timeout: Duration = .seconds(25)) throws(DBusError) -> BlockingConnection {
        guard let address = sessionBusAddress(environment: environment) else {
            throw .disconnected("no session bus: DBUS_SESSION_BUS_ADDRESS is unset and XDG_RUNTIME_DIR has no 'bus' socket")
        }
        return try BlockingConnection(address: address, timeout: timeout)
    }

    deinit { close() }

    /// Calls a method and returns the reply's arguments, blocking for at most `timeout`.
    ///
    /// The reply is judged as `Connection` judges every reply (`ReplyAuthority`):
    /// one from anyone the call may not be answered by is dropped, and the call
    /// goes on waiting for the genuine one.
    /// - Parameter autoStart: let the bus start the destination through D-Bus
    ///   activation (the default); `false` answers `ServiceUnknown` at once instead.
    /// - Throws: the peer's error reply, `NoReply` at the timeout, `Disconnected` once closed.
    public func call(
        _ destination: BusName, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
        _ arguments: [Value] = [], timeout: Duration = .seconds(25), autoStart: Bool = true
    ) throws(DBusError) -> [Value] {
        guard let raw else { throw .disconnected("the connection is closed") }
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        if !autoStart { message.setNoAutoStart() }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var authority = ReplyAuthority(destination: destination)
        // Before the call, so that the bus's answers about the owner precede its reply.
        var ownerQuery: UInt32?
        if let name = authority.watchedName {
            if let owner = owners[name] {
                if let owner { authority.ownerSeen(owner) }
            } else {
                ownerQuery = try watchOwner(of: name, raw)
            }
        }
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, message.raw, &serial) != 0 else { throw DBusError.noMemory }
        while true {
            while let incoming = dbus_connection_pop_message(raw).map(Message.init(adopting:)) {
                if incoming.kind == .signal {
                    noteOwnerChange(incoming, into: &authority)
                } else if let query = ownerQuery, incoming.replySerial == query, incoming.sender == .bus {
                    ownerQuery = nil
                    let owner = try? incoming.decode(String.self)
                    if let name = authority.watchedName { owners[name] = .some(owner) }
                    if let owner { authority.ownerSeen(owner) }
                } else if incoming.replySerial == serial, incoming.kind == .methodReturn || incoming.kind == .error {
                    switch authority.verdict(for: incoming) {
                    case .accept:
                        if let error = incoming.error { throw error }
                        return try incoming.arguments()
                    case .failure(let error):
                        throw error
                    case .drop:
                        droppedReplies += 1
                    }
                }
            }
            let left = deadline - clock.now
            guard left > .zero else { throw .noReply("no reply arrived within the time limit") }
            guard dbus_connection_read_write(raw, max(milliseconds(left), 1)) != 0 else {
                throw .disconnected("the bus closed the connection")
            }
        }
    }

    /// How many replies were dropped because they did not come from anyone
    /// the call may be answered by.
    public private(set) var droppedReplies = 0

    /// The owners of the well-known names called, as the bus last reported
    /// them (`.some(nil)`: nobody); a name is absent until first called.
    private var owners: [String: String?] = [:]

    /// Asks the bus to report `name`'s owner and its changes; returns the
    /// serial of the `GetNameOwner` call, whose reply is read with the call's.
    private func watchOwner(of name: String, _ raw: OpaquePointer) throws(DBusError) -> UInt32 {
        let busPath: ObjectPath = "/org/freedesktop/DBus"
        let match = try Message.methodCall(
            destination: .bus, path: busPath, interface: "org.freedesktop.DBus", member: "AddMatch",
            arguments: [.string(OwnerWatch.rule(for: name).description)])
        match.setNoReply()
        let query = try Message.methodCall(
            destination: .bus, path: busPath, interface: "org.freedesktop.DBus", member: "GetNameOwner",
            arguments: [.string(name)])
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, match.raw, nil) != 0, dbus_connection_send(raw, query.raw, &serial) != 0 else {
            throw DBusError.noMemory
        }
        return serial
    }

    /// Follows a `NameOwnerChanged` from the bus for a watched name.
    private func noteOwnerChange(_ signal: Message, into authority: inout ReplyAuthority) {
        guard let (name, newOwner) = OwnerWatch.change(in: signal), owners[name] != nil else { return }
        owners[name] = .some(newOwner.isEmpty ? nil : newOwner)
        if name == authority.watchedName, !newOwner.isEmpty { authority.ownerSeen(newOwner) }
    }

    /// Writes out what is still queued (for at most a second), then closes.
    /// Closing twice does nothing.
    public func close() {
        guard let raw else { return }
        self.raw = nil
        flushOutgoing(raw, within: .seconds(1))
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }
}
