// What "this module's wire format agrees with libdbus" means, defined once
// for Tests/DBusTests/WireFormatTests and the fuzz-wire target. libdbus is
// the reference: its loader's verdict on bytes, its reading of a message's
// header fields and, through its iterators (`LibdbusDecoder`), of its body.
import CDBus
import DBus

/// How libdbus's verdict on `bytes` differs from `WireFormat.decode`'s, or
/// `nil` when they agree: both refuse, or both read the same header and body.
/// The differences listed inside are deliberate, each with its reason.
public func wireDisagreement(on bytes: [UInt8]) -> String? {
    // `dbus_message_demarshal` reads the first message in the bytes and
    // ignores any after it; `WireFormat.decode` takes exactly one message.
    let needed = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal_bytes_needed($0.baseAddress, Int32(clamping: $0.count)) }
    }
    if needed > 0, Int(needed) < bytes.count {
        if (try? WireFormat.decode(bytes)) != nil { return "read here with \(bytes.count - Int(needed)) bytes past the message" }
        return wireDisagreement(on: Array(bytes.prefix(Int(needed))))
    }
    let ours = Result { () throws(DBus.DBusError) in try WireFormat.decode(bytes) }
    let theirs = Result { () throws(DBus.DBusError) in try libdbusRead(bytes) }
    switch (ours, theirs) {
    case (.failure, .failure):
        return nil
    case (.success(let a), .success(let b)):
        return a.header == b.header && sameBody(a.body, b.body) ? nil : "read differently: \(a) against libdbus's \(b)"
    case (.failure, .success) where bytes.count > 1 && !(1...4).contains(bytes[1]):
        // A type the specification does not define: libdbus loads the
        // message and its dispatch ignores it, as the specification asks.
        // This refuses it, and a connection reading a stream skips it
        // (`MessageStream`) rather than take it for corruption.
        return nil
    case (.failure, .success(let read)) where [read.header.sender, read.header.destination].contains(where: isUniqueNameOnlyLibdbusTakes):
        // A unique name of one element (":1-42") or with an empty first one
        // (":.a"): libdbus takes it; the specification wants two or more
        // elements of at least one character each, as `BusName` does. The
        // buses name every connection ":1.N".
        return nil
    case (.failure(let error), .success):
        return "refused here (\(error.message)), read by libdbus"
    case (.success, .failure(let error)):
        return "read here, refused by libdbus (\(error.message))"
    }
}

/// libdbus's reading of the message `bytes` hold: its loader's checks, its
/// header fields, its body through its iterators.
public func libdbusRead(_ bytes: [UInt8]) throws(DBus.DBusError) -> (header: MessageHeader, body: [Value]) {
    var error = CDBus.DBusError()
    dbus_error_init(&error)
    let raw = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32(clamping: $0.count), &error) }
    }
    guard let raw else {
        defer { dbus_error_free(&error) }
        throw DBus.DBusError(.invalidArgs, error.message.map { String(cString: $0) } ?? "refused by libdbus")
    }
    defer { dbus_message_unref(raw) }
    return (libdbusHeader(of: raw, flags: bytes[2]), try LibdbusDecoder.decode(raw))
}

/// What libdbus reads of a message's header; the flag byte as it was written.
public func libdbusHeader(of raw: OpaquePointer, flags: UInt8) -> MessageHeader {
    func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
    let kind: Message.Kind = switch dbus_message_get_type(raw) {
    case 1: .methodCall
    case 2: .methodReturn
    case 3: .error
    default: .signal
    }
    let replySerial = dbus_message_get_reply_serial(raw)
    return MessageHeader(
        kind: kind, flags: MessageHeader.Flags(rawValue: flags), serial: dbus_message_get_serial(raw),
        path: text(dbus_message_get_path(raw)).map(ObjectPath.init(trusted:)),
        interface: text(dbus_message_get_interface(raw)).map(InterfaceName.init(trusted:)),
        member: text(dbus_message_get_member(raw)).map(MemberName.init(trusted:)),
        errorName: text(dbus_message_get_error_name(raw)).map(ErrorName.init(trusted:)),
        replySerial: replySerial == 0 ? nil : replySerial,
        destination: text(dbus_message_get_destination(raw)).map(BusName.init(trusted:)),
        sender: text(dbus_message_get_sender(raw)).map(BusName.init(trusted:)),
        signature: (try? Signature(text(dbus_message_get_signature(raw)) ?? "")) ?? .empty)
}

/// The bytes of the message libdbus builds for `header` and `body`, each
/// field set through libdbus's own setters and the body appended with its iterators.
public func libdbusWrite(_ header: MessageHeader, _ body: [Value]) throws(DBus.DBusError) -> [UInt8] {
    let type: Int32 = switch header.kind {
    case .methodCall: 1
    case .methodReturn: 2
    case .error: 3
    case .signal: 4
    }
    guard let raw = dbus_message_new(type) else { throw DBus.DBusError(.noMemory, "out of memory") }
    defer { dbus_message_unref(raw) }
    func set(_ text: String?, _ setter: (OpaquePointer?, UnsafePointer<CChar>?) -> dbus_bool_t) {
        if let text { _ = setter(raw, text) }
    }
    set(header.path?.rawValue, dbus_message_set_path)
    set(header.interface?.rawValue, dbus_message_set_interface)
    set(header.member?.rawValue, dbus_message_set_member)
    set(header.errorName?.rawValue, dbus_message_set_error_name)
    set(header.destination?.rawValue, dbus_message_set_destination)
    set(header.sender?.rawValue, dbus_message_set_sender)
    if let replySerial = header.replySerial { dbus_message_set_reply_serial(raw, replySerial) }
    dbus_message_set_no_reply(raw, header.flags.contains(.noReplyExpected) ? 1 : 0)
    dbus_message_set_auto_start(raw, header.flags.contains(.noAutoStart) ? 0 : 1)
    dbus_message_set_serial(raw, header.serial)
    try LibdbusEncoder.append(body, to: raw)
    var pointer: UnsafeMutablePointer<CChar>?
    var length: Int32 = 0
    guard dbus_message_marshal(raw, &pointer, &length) != 0, let pointer else { throw DBus.DBusError(.noMemory, "out of memory") }
    defer { dbus_free(pointer) }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) }
}

/// Whether two bodies hold the same values, a NaN the same as itself when
/// its bits are the same (`==` on `Value` says no, as on `Double`).
public func sameBody(_ a: [Value], _ b: [Value]) -> Bool {
    if a == b { return true }
    let header = MessageHeader(kind: .methodReturn, serial: 1, replySerial: 1)
    guard let first = try? WireFormat.encode(header, body: a), let second = try? WireFormat.encode(header, body: b) else { return false }
    return first == second
}

private func isUniqueNameOnlyLibdbusTakes(_ name: BusName?) -> Bool {
    guard let name = name?.rawValue else { return false }
    return name.hasPrefix(":") && BusName.problem(with: name) != nil
}
