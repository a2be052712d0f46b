import CDBus
import DBus

/// Sends `METHOD_RETURN`s to `victim` for every reply serial in `serials`,
/// each with the string arguments `strings` as its body: what a hostile peer
/// in the session does to answer calls it was never sent, guessing serials.
///
/// Built with libdbus directly, since the `DBus` module rightly offers no way
/// to reply to a call that was never received.
public func forgeReplies(from forger: Connection, to victim: BusName, serials: ClosedRange<UInt32>, strings: [String]) throws {
    for serial in serials {
        guard let raw = dbus_message_new(CDBUS_MESSAGE_TYPE_METHOD_RETURN) else { continue }
        defer { dbus_message_unref(raw) }
        _ = dbus_message_set_destination(raw, victim.rawValue)
        _ = dbus_message_set_reply_serial(raw, serial)
        dbus_message_set_serial(raw, 0x4000_0000 + serial)  // demarshal refuses serial 0
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iterator)
        for text in strings {
            text.withCString { pointer in
                var value: UnsafePointer<CChar>? = pointer
                _ = dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_STRING, &value)
            }
        }
        var pointer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &pointer, &length) != 0, let pointer else { continue }
        let bytes = pointer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
        dbus_free(pointer)
        forger.send(try Message.demarshal(bytes))
    }
}
