// What "this module's wire format agrees with libdbus" means, defined once
// for Tests/DBusTests/WireFormatTests and the fuzz-wire target.
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
    let theirs = Result { () throws(DBus.DBusError) -> (header: MessageHeader, body: [Value]) in
        let message = try Message.demarshal(bytes)
        return (libdbusHeader(of: message), try message.arguments())
    }
    switch (ours, theirs) {
    case (.failure, .failure):
        return nil
    case (.success(let a), .success(let b)):
        return a.header == b.header && sameBody(a.body, b.body) ? nil : "read differently: \(a) against libdbus's \(b)"
    case (.failure, .success) where bytes.count > 1 && !(1...4).contains(bytes[1]):
        // A type the specification does not define: libdbus loads the
        // message and its dispatch ignores it, as the specification asks.
        // This refuses it; a connection reading a stream must then skip it
        // rather than take it for corruption.
        return nil
    case (.failure, .success(let read)) where [read.header.sender, read.header.destination].contains(where: isOneElementUniqueName):
        // A unique name of one element (":1-42"): libdbus takes it; the
        // specification wants two or more, as `BusName` does. The buses
        // name every connection ":1.N".
        return nil
    case (.failure(let error), .success):
        return "refused here (\(error.message)), read by libdbus"
    case (.success, .failure(let error)):
        return "read here, refused by libdbus (\(error.message))"
    }
}

/// What libdbus reads of `message`'s header.
public func libdbusHeader(of message: Message) -> MessageHeader {
    MessageHeader(
        kind: message.kind, flags: MessageHeader.Flags(rawValue: message.marshal().dropFirst(2).first ?? 0),
        serial: message.serial, path: message.path, interface: message.interface, member: message.member,
        errorName: message.errorName, replySerial: message.replySerial == 0 ? nil : message.replySerial,
        destination: message.destination, sender: message.sender, signature: message.signature)
}

/// Whether two bodies hold the same values, a NaN the same as itself when
/// its bits are the same (`==` on `Value` says no, as on `Double`).
public func sameBody(_ a: [Value], _ b: [Value]) -> Bool {
    if a == b { return true }
    let header = MessageHeader(kind: .methodReturn, serial: 1, replySerial: 1)
    guard let first = try? WireFormat.encode(header, body: a), let second = try? WireFormat.encode(header, body: b) else { return false }
    return first == second
}

private func isOneElementUniqueName(_ name: BusName?) -> Bool {
    guard let name = name?.rawValue else { return false }
    return name.hasPrefix(":") && !name.contains(".")
}
