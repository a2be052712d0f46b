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

    /// Connects to the bus at `address` and registers (`Hello`) within `timeout`.
    public init(address: String, timeout: Duration = .seconds(25)) throws(DBusError) {
        let raw = try LibDBus.openPrivate(address)
        self.raw = raw
        do {
            let name = try call(
                .bus, "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", timeout: timeout).decode(String.self)
            _ = dbus_bus_set_unique_name(raw, name)
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
    /// - Throws: the peer's error reply, `NoReply` at the timeout, `Disconnected` once closed.
    public func call(
        _ destination: BusName, _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
        _ arguments: [Value] = [], timeout: Duration = .seconds(25)
    ) throws(DBusError) -> [Value] {
        guard let raw else { throw .disconnected("the connection is closed") }
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(raw, message.raw, milliseconds(timeout), &error) else {
            throw LibDBus.take(&error)
        }
        return try Message(adopting: reply).arguments()
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
