/// A bus connection for one-shot clients such as `openurl URL`: each call
/// blocks the calling thread until its reply or its timeout. It starts no
/// thread, no event loop and no concurrency runtime, and speaks to the bus
/// itself (`BusSocket`, `WireFormat`), without libdbus, so a short-lived
/// process does one round trip and exits. Incoming calls and signals are
/// never handled; long-lived programs (and the daemon) use `Connection`.
///
/// Not `Sendable`: use it from the thread that made it, then `close()` it.
public final class BlockingConnection {
    private var socket: BusSocket?
    private var incoming = MessageStream()
    /// Where each read from the socket lands before it joins `incoming`.
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    private var lastSerial: UInt32 = 0

    /// The unique name the bus gave this connection, e.g. `:1.42`.
    public private(set) var uniqueName: BusName?

    /// Connects to the bus at `address` and registers (`Hello`) within `timeout`.
    /// - Throws: `BadAddress` for an address this module cannot reach; the
    ///   connect error as libdbus names it (`FileNotFound`, `NoServer`,
    ///   `AccessDenied`); `AuthFailed`; `NoReply` when `timeout` passes first.
    public init(address: String, timeout: Duration = .seconds(25)) throws(DBusError) {
        let deadline = ContinuousClock.now + timeout
        socket = try BusSocket.connect(to: try BusAddress(address), before: deadline)
        do {
            let name = try call(
                .bus, "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", timeout: deadline - ContinuousClock.now).decode(String.self)
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
        guard let socket else { throw .disconnected("the connection is closed") }
        let deadline = ContinuousClock.now + timeout
        var authority = ReplyAuthority(destination: destination)
        // Before the call, so that the bus's answers about the owner precede its reply.
        var ownerQuery: UInt32?
        if let name = authority.watchedName {
            if let owner = owners[name] {
                if let owner { authority.ownerSeen(owner) }
            } else {
                ownerQuery = try watchOwner(of: name, on: socket, before: deadline)
            }
        }
        let serial = try send(
            MessageHeader(kind: .methodCall, flags: autoStart ? [] : .noAutoStart, serial: 0, path: path, interface: interface,
                          member: member, destination: destination),
            arguments, on: socket, before: deadline)
        while true {
            let (header, body) = try receive(on: socket, before: deadline)
            if header.kind == .signal {
                noteOwnerChange(header, body, into: &authority)
            } else if let query = ownerQuery, header.replySerial == query, header.sender == .bus {
                ownerQuery = nil
                let owner = header.kind == .methodReturn ? try? body.decode(String.self) : nil
                if let name = authority.watchedName { owners[name] = .some(owner) }
                if let owner { authority.ownerSeen(owner) }
            } else if header.replySerial == serial, header.kind == .methodReturn || header.kind == .error {
                let error = header.errorName.map { DBusError($0, body.first?.string ?? "") }
                switch authority.verdict(sender: header.sender?.rawValue, kind: header.kind, errorName: header.errorName, message: { error?.message ?? "" }) {
                case .accept:
                    if let error { throw error }
                    return body
                case .failure(let error):
                    throw error
                case .drop:
                    droppedReplies += 1
                }
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
    private func watchOwner(of name: String, on socket: BusSocket, before deadline: ContinuousClock.Instant) throws(DBusError) -> UInt32 {
        let busPath: ObjectPath = "/org/freedesktop/DBus"
        _ = try send(
            MessageHeader(kind: .methodCall, flags: .noReplyExpected, serial: 0, path: busPath, interface: "org.freedesktop.DBus",
                          member: "AddMatch", destination: .bus),
            [.string(OwnerWatch.rule(for: name).description)], on: socket, before: deadline)
        return try send(
            MessageHeader(kind: .methodCall, serial: 0, path: busPath, interface: "org.freedesktop.DBus", member: "GetNameOwner",
                          destination: .bus),
            [.string(name)], on: socket, before: deadline)
    }

    /// Follows a `NameOwnerChanged` from the bus for a watched name.
    private func noteOwnerChange(_ header: MessageHeader, _ body: [Value], into authority: inout ReplyAuthority) {
        guard let (name, newOwner) = OwnerWatch.change(sender: header.sender, interface: header.interface, member: header.member, arguments: { body }),
              owners[name] != nil
        else { return }
        owners[name] = .some(newOwner.isEmpty ? nil : newOwner)
        if name == authority.watchedName, !newOwner.isEmpty { authority.ownerSeen(newOwner) }
    }

    /// Sends a message with the next serial; returns the serial.
    private func send(_ header: MessageHeader, _ body: [Value], on socket: BusSocket, before deadline: ContinuousClock.Instant) throws(DBusError) -> UInt32 {
        var header = header
        lastSerial = lastSerial == UInt32.max ? 1 : lastSerial + 1
        header.serial = lastSerial
        try socket.send(try WireFormat.encode(header, body: body), before: deadline)
        return header.serial
    }

    /// The next message from the bus, read and checked in full. A stream
    /// that cannot be read closes the connection, as libdbus does.
    private func receive(on socket: BusSocket, before deadline: ContinuousClock.Instant) throws(DBusError) -> (header: MessageHeader, body: [Value]) {
        while true {
            let message: [UInt8]?
            do {
                message = try incoming.next()
            } catch {
                close()
                throw .disconnected("the bus sent bytes that are not a message: \(error.message)")
            }
            if let message {
                do {
                    return try WireFormat.decode(message)
                } catch {
                    close()
                    throw .disconnected("the bus sent a message that is not valid: \(error.message)")
                }
            }
            let received = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(DBusError) in try socket.receive(into: buffer, before: deadline) }
            }
            let count = try received.get()
            guard count > 0 else {
                close()
                throw .disconnected("the bus closed the connection")
            }
            chunk.withUnsafeBytes { incoming.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }

    /// Closes the connection: every message was written when its call was
    /// made, so nothing is left to flush. Closing twice does nothing.
    public func close() {
        socket?.close()
        socket = nil
    }
}
