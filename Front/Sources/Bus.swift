import CDBus
import CFront

/// An error as the full CLI's `DBusError` carries it: a name and a message.
struct BusError: Error {
    let name: String
    let message: String

    /// "Nobody is there": the daemon cannot be reached, so the full CLI
    /// opens the URL itself (`DispatcherClient.isUnreachable`, without
    /// `NoReply`, which the front reports as the full CLI does).
    var isUnreachable: Bool {
        name == Contract.serviceUnknown || name == Contract.nameHasNoOwner || name == Contract.disconnected
            || name == Contract.fileNotFound || name.hasPrefix(Contract.spawnPrefix)
    }

    /// Errors that say nobody is there, which only the bus driver may send (`ErrorName.isBusOnly`).
    var isBusOnly: Bool {
        name == Contract.serviceUnknown || name == Contract.nameHasNoOwner || name == Contract.noReply || name.hasPrefix(Contract.spawnPrefix)
    }
}

/// One private connection to the session bus, used the way `BlockingConnection`
/// uses one: each call blocks until its genuine reply or its timeout, and a
/// reply counts only from a connection that owned the called name between
/// the call's sending and the reply (`ReplyAuthority`'s rule, docs/security.md).
final class Bus {
    private let raw: OpaquePointer
    /// The owners of the destination seen so far (`GetNameOwner`, then `NameOwnerChanged`).
    private var owners: [String] = []
    private var watching = false

    /// Connects to `address` and says `Hello` within the full CLI's 5 s.
    init(address: String) throws(BusError) {
        var error = DBusError()
        dbus_error_init(&error)
        guard let raw = dbus_connection_open_private(address, &error) else { throw Self.take(&error) }
        self.raw = raw
        dbus_connection_set_exit_on_disconnect(raw, 0)
        let hello = dbus_message_new_method_call(Contract.bus, Contract.busPath, Contract.busInterface, "Hello")!
        defer { dbus_message_unref(hello) }
        guard let reply = dbus_connection_send_with_reply_and_block(raw, hello, Contract.connectMilliseconds, &error) else {
            close()
            throw Self.take(&error)
        }
        defer { dbus_message_unref(reply) }
        guard let name = Self.strings(reply).first else {
            close()
            throw BusError(name: Contract.failed, message: "the bus's answer to Hello has no name")
        }
        _ = dbus_bus_set_unique_name(raw, name)
    }

    /// Writes out what is queued (a second at most) and closes.
    func close() {
        var left = 100
        while dbus_connection_has_messages_to_send(raw) != 0, left > 0, dbus_connection_read_write(raw, 10) != 0 { left -= 1 }
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    /// Sends `message` (a call to `Contract.busName`, which it takes) and
    /// returns its genuine reply within `timeout` milliseconds, or throws the
    /// genuine error; forged replies are dropped and the wait goes on.
    func call(_ message: OpaquePointer, timeout: Int32) throws(BusError) -> OpaquePointer {
        defer { dbus_message_unref(message) }
        var ownerQuery: UInt32 = 0
        if !watching {
            watching = true
            ownerQuery = try watchOwner()
        }
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, message, &serial) != 0 else { throw BusError(name: Contract.noMemory, message: "out of memory") }
        let deadline = Self.now() + Int64(timeout)
        while true {
            while let incoming = dbus_connection_pop_message(raw) {
                if let reply = try judge(incoming, serial: serial, ownerQuery: &ownerQuery) { return reply }
            }
            let left = deadline - Self.now()
            guard left > 0 else { throw BusError(name: Contract.noReply, message: "no reply arrived within the time limit") }
            guard dbus_connection_read_write(raw, Int32(clamping: max(left, 1))) != 0 else {
                throw BusError(name: Contract.disconnected, message: "the bus closed the connection")
            }
        }
    }

    /// What one incoming message means for the call: its reply (returned),
    /// its error (thrown), news of the name's owner, or nothing (dropped).
    private func judge(_ incoming: OpaquePointer, serial: UInt32, ownerQuery: inout UInt32) throws(BusError) -> OpaquePointer? {
        let kind = dbus_message_get_type(incoming)
        let sender = dbus_message_get_sender(incoming).map { String(cString: $0) }
        let fromBus = sender == Contract.bus
        let replySerial = dbus_message_get_reply_serial(incoming)
        if kind == CDBUS_MESSAGE_TYPE_SIGNAL {
            if fromBus, let (name, owner) = Self.ownerChange(incoming), name == Contract.busName, !owner.isEmpty { owners.append(owner) }
        } else if ownerQuery != 0, replySerial == ownerQuery, fromBus {
            ownerQuery = 0
            if kind == CDBUS_MESSAGE_TYPE_METHOD_RETURN, let owner = Self.strings(incoming).first { owners.append(owner) }
        } else if replySerial == serial, kind == CDBUS_MESSAGE_TYPE_METHOD_RETURN || kind == CDBUS_MESSAGE_TYPE_ERROR {
            let isError = kind == CDBUS_MESSAGE_TYPE_ERROR
            let accepted: Bool = if let sender {
                // The bus may answer with an error only; a peer, if it owned the name.
                fromBus ? isError : owners.contains(sender)
            } else {
                isError  // made by libdbus itself: the timeout's NoReply
            }
            if accepted {
                guard isError else { return incoming }
                defer { dbus_message_unref(incoming) }
                let error = BusError(name: dbus_message_get_error_name(incoming).map { String(cString: $0) } ?? Contract.failed,
                                     message: Self.strings(incoming).first ?? "")
                if sender != nil, !fromBus, error.isBusOnly {
                    throw BusError(name: Contract.failed, message: "the peer answered with \(error.name), which only the bus may send: \(error.message)")
                }
                throw error
            }
        }
        dbus_message_unref(incoming)
        return nil
    }

    /// Asks the bus for the name's owner and its changes before the call, so
    /// that its answers precede the reply; returns the `GetNameOwner` serial.
    private func watchOwner() throws(BusError) -> UInt32 {
        let rule = "type='signal',sender='\(Contract.bus)',interface='\(Contract.busInterface)',member='NameOwnerChanged',"
            + "path='\(Contract.busPath)',arg0='\(Contract.busName)'"
        let match = dbus_message_new_method_call(Contract.bus, Contract.busPath, Contract.busInterface, "AddMatch")!
        let query = dbus_message_new_method_call(Contract.bus, Contract.busPath, Contract.busInterface, "GetNameOwner")!
        defer { dbus_message_unref(match); dbus_message_unref(query) }
        Self.append(rule, to: match)
        dbus_message_set_no_reply(match, 1)
        Self.append(Contract.busName, to: query)
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, match, nil) != 0, dbus_connection_send(raw, query, &serial) != 0 else {
            throw BusError(name: Contract.noMemory, message: "out of memory")
        }
        return serial
    }

    static func append(_ text: String, to message: OpaquePointer) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        text.withCString { pointer in
            var value: UnsafePointer<CChar>? = pointer
            _ = dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_STRING, &value)
        }
    }

    /// The leading string arguments (all of a `NameOwnerChanged`, an error's message, `Hello`'s name).
    static func strings(_ message: OpaquePointer) -> [String] {
        var iterator = DBusMessageIter()
        var found: [String] = []
        guard dbus_message_iter_init(message, &iterator) != 0 else { return found }
        while dbus_message_iter_get_arg_type(&iterator) == CDBUS_TYPE_STRING {
            var value: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&iterator, &value)
            found.append(value.map { String(cString: $0) } ?? "")
            guard dbus_message_iter_next(&iterator) != 0 else { break }
        }
        return found
    }

    /// `NameOwnerChanged`'s name and new owner (`OwnerWatch.change`).
    private static func ownerChange(_ signal: OpaquePointer) -> (String, String)? {
        guard dbus_message_is_signal(signal, Contract.busInterface, "NameOwnerChanged") != 0 else { return nil }
        let words = strings(signal)
        guard words.count == 3 else { return nil }
        return (words[0], words[2])
    }

    private static func take(_ error: inout DBusError) -> BusError {
        defer { dbus_error_free(&error) }
        return BusError(name: error.name.map { String(cString: $0) } ?? Contract.failed,
                        message: error.message.map { String(cString: $0) } ?? "")
    }

    /// Monotonic milliseconds.
    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
