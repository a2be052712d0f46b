import CDBus
import DBus

/// Sends `METHOD_RETURN`s to `victim` for every reply serial in `serials`,
/// each with the string arguments `strings` as its body: what a hostile peer
/// in the session does to answer calls it was never sent, guessing serials.
///
/// With `errorName`, each forgery is an `ERROR` of that name instead (the
/// strings are its message).
public func forgeReplies(
    from forger: Connection, to victim: BusName, serials: ClosedRange<UInt32>, strings: [String],
    errorName: ErrorName? = nil
) throws {
    let template: Message
    let call = try forgedCall(to: victim)
    if let errorName {
        template = try Message.errorReply(to: call, DBusError(errorName, strings.joined(separator: " ")))
    } else {
        template = try Message.reply(to: call, arguments: strings.map { .string($0) })
    }
    try forgeReplies(from: forger, to: victim, serials: serials, like: template)
}

/// A method call as if received, with serial 1, for `Message.reply(to:)`
/// to make a forgery's template from.
public func forgedCall(to victim: BusName) throws -> Message {
    var bytes = try Message.methodCall(destination: victim, path: "/", interface: "org.example.Forged", member: "Forged")
        .marshal()
    bytes.replaceSubrange(8..<12, with: [1, 0, 0, 0])  // the header's serial (little-endian, as libdbus wrote it here)
    return try Message.demarshal(bytes)
}

/// Sends `victim` a copy of `template` (a reply or an error made with the
/// `DBus` module's own encoder) as the answer to every serial in `serials`.
///
/// Built with libdbus directly, since the `DBus` module rightly offers no way
/// to reply to a call that was never received.
public func forgeReplies(from forger: Connection, to victim: BusName, serials: ClosedRange<UInt32>, like template: Message) throws {
    var bytes = template.marshal()
    bytes.replaceSubrange(8..<12, with: [1, 0, 0, 0])  // demarshal refuses serial 0; it is set below
    for serial in serials {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        let raw = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32($0.count), &error) }
        }
        dbus_error_free(&error)
        guard let raw else { continue }
        defer { dbus_message_unref(raw) }
        _ = dbus_message_set_destination(raw, victim.rawValue)
        _ = dbus_message_set_reply_serial(raw, serial)
        dbus_message_set_serial(raw, 0x4000_0000 + serial)  // demarshal refuses serial 0
        var pointer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &pointer, &length) != 0, let pointer else { continue }
        let copy = pointer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
        dbus_free(pointer)
        forger.send(try Message.demarshal(copy))
    }
}
