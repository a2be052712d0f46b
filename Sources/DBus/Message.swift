import CDBus
import SafeText

/// A D-Bus message: a method call, a reply, an error or a signal.
///
/// A `Message` is built complete by one of its factory methods and never
/// changed afterwards, so sharing it between threads only reads it.
public final class Message: @unchecked Sendable {
    // @unchecked: `raw` is immutable after construction (no setter is exposed and
    // every factory fills the message before returning it), and libdbus
    // reference-counts messages atomically once `dbus_threads_init_default` ran.
    // `built` is an immutable copy of two of its header fields.
    let raw: OpaquePointer
    /// The destination and member of a call this process built, as given to
    /// `methodCall`; `nil` for every other message. Read back from libdbus
    /// after the body is appended, each is a parse of the whole header
    /// (appending invalidates libdbus's cache of the header's fields): about
    /// 5 800 instructions on every call out, which the C relay never pays.
    private let built: (destination: BusName?, member: MemberName)?

    /// Adopts a reference the caller owns.
    init(adopting raw: OpaquePointer) {
        self.raw = raw
        self.built = nil
    }

    /// Adopts a method call the caller built, to `destination`'s `member`.
    private init(adopting raw: OpaquePointer, destination: BusName?, member: MemberName) {
        self.raw = raw
        self.built = (destination, member)
    }

    deinit { dbus_message_unref(raw) }

    /// What kind of message this is.
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal
    }

    /// Whether this is a call, a reply, an error or a signal.
    public var kind: Kind {
        switch dbus_message_get_type(raw) {
        case CDBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        case CDBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case CDBUS_MESSAGE_TYPE_ERROR: .error
        default: .signal
        }
    }

    /// The unique name of the sending connection, when the bus filled it in.
    public var sender: BusName? { dbus_message_get_sender(raw).map { BusName(trusted: String(cString: $0)) } }
    /// The name the message was sent to, if any.
    public var destination: BusName? {
        if let built { return built.destination }
        return dbus_message_get_destination(raw).map { BusName(trusted: String(cString: $0)) }
    }
    /// The object path of a call or a signal.
    public var path: ObjectPath? { dbus_message_get_path(raw).map { ObjectPath(trusted: String(cString: $0)) } }
    /// The interface of a call or a signal.
    public var interface: InterfaceName? {
        dbus_message_get_interface(raw).map { InterfaceName(trusted: String(cString: $0)) }
    }
    /// The member of a call or a signal.
    public var member: MemberName? {
        if let built { return built.member }
        return dbus_message_get_member(raw).map { MemberName(trusted: String(cString: $0)) }
    }
    /// The error name of an error reply.
    public var errorName: ErrorName? {
        dbus_message_get_error_name(raw).map { ErrorName(trusted: String(cString: $0)) }
    }
    /// The signature of the body; libdbus validated it when the message arrived.
    public var signature: Signature {
        dbus_message_get_signature(raw).flatMap { try? Signature(String(cString: $0)) } ?? .empty
    }
    /// The message's serial number, unique per sender.
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    /// For a reply, the serial of the call it answers.
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }
    /// Whether the sender asked for no reply (`NO_REPLY_EXPECTED`).
    public var expectsReply: Bool { dbus_message_get_no_reply(raw) == 0 }

    /// The body, decoded.
    /// - Throws: `InvalidArgs` if the body holds a type this module does not support.
    public func arguments() throws(DBusError) -> [Value] {
        try MessageDecoder.decode(self)
    }

    /// The body decoded as the given types, which must match its signature exactly.
    ///
    ///     let (url, options) = try message.decode(String.self, [String: Variant].self)
    ///
    /// - Throws: `InvalidArgs` naming the expected and the actual signature.
    public func decode<each T: DBusRepresentable>(_ types: repeat (each T).Type) throws(DBusError)
        -> (repeat each T)
    {
        try arguments().decode(repeat (each T).self)
    }

    /// The error this message carries, when it is an error reply.
    public var error: DBusError? {
        guard kind == .error, let name = errorName else { return nil }
        let text = (try? arguments())?.first?.string ?? ""
        return DBusError(name, text)
    }
}

// MARK: - Building messages

extension Message {
    /// A method call.
    /// - Throws: `InvalidArgs` if an argument cannot be sent (see `Value`).
    public static func methodCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        arguments: [Value] = []
    ) throws(DBusError) -> Message {
        _ = LibDBus.ready
        // Each name lent as the string's own bytes: passed as `String`, the
        // four became four copied, allocated C strings on every call out.
        let made = withOptionalCString(destination?.rawValue) { destination in
            path.rawValue.withCString { path in
                withOptionalCString(interface?.rawValue) { interface in
                    member.rawValue.withCString { member in dbus_message_new_method_call(destination, path, interface, member) }
                }
            }
        }
        guard let raw = made else { throw .noMemory }
        let message = Message(adopting: raw, destination: destination, member: member)
        try MessageEncoder.append(arguments, to: message)
        return message
    }

    /// A signal.
    public static func signal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [Value] = []
    ) throws(DBusError) -> Message {
        _ = LibDBus.ready
        let made = path.rawValue.withCString { path in
            interface.rawValue.withCString { interface in
                member.rawValue.withCString { member in dbus_message_new_signal(path, interface, member) }
            }
        }
        guard let raw = made else { throw .noMemory }
        let message = Message(adopting: raw)
        try MessageEncoder.append(arguments, to: message)
        return message
    }

    /// A successful reply to `call`.
    /// - Throws: `InvalidArgs` when `call` was never sent (a reply names the
    ///   call's serial; libdbus aborts the process on serial 0).
    public static func reply(to call: Message, arguments: [Value] = []) throws(DBusError) -> Message {
        try call.checkAnswerable()
        guard let raw = dbus_message_new_method_return(call.raw) else { throw .noMemory }
        let message = Message(adopting: raw)
        try MessageEncoder.append(arguments, to: message)
        return message
    }

    /// An error reply to `call`.
    /// - Throws: `InvalidArgs` when `call` was never sent, as `reply(to:arguments:)`.
    public static func errorReply(to call: Message, _ error: DBusError) throws(DBusError) -> Message {
        try call.checkAnswerable()
        // The text often quotes a peer's input, and reaches GIO's dialogs, a
        // terminal, a log: control, bidi and invisible characters (NUL,
        // which would truncate it, among them) are spelled out, as logs spell them.
        let text = displayable(error.message)
        guard let raw = dbus_message_new_error(call.raw, error.name.rawValue, text) else { throw .noMemory }
        return Message(adopting: raw)
    }

    /// A reply carries the serial of the call it answers, and libdbus aborts
    /// the process rather than set serial 0: refused here instead.
    private func checkAnswerable() throws(DBusError) {
        guard serial != 0 else { throw .invalidArgs("cannot answer a message that was never sent: it has no serial") }
    }

    /// Parses a message from its wire format, as libdbus would receive it.
    /// - Throws: `InvalidArgs` when the bytes are not a valid message.
    /// The corresponding C function is `dbus_message_demarshal`.
    public static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> Message {
        _ = LibDBus.ready
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        let raw = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32(clamping: $0.count), &error) }
        }
        guard let raw else {
            let failure = LibDBus.take(&error)
            throw .invalidArgs(failure.message)
        }
        return Message(adopting: raw)
    }

    /// The message in its wire format.
    /// The corresponding C function is `dbus_message_marshal`.
    public func marshal() -> [UInt8] {
        var pointer: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &pointer, &length) != 0, let pointer else { return [] }
        defer { dbus_free(pointer) }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) }
    }

    /// Marks the message so that no reply is sent to it.
    func setNoReply() { dbus_message_set_no_reply(raw, 1) }

    /// Marks the message so that the bus does not start its destination
    /// through D-Bus activation (`NO_AUTO_START`) when nobody owns the name.
    public func setNoAutoStart() { dbus_message_set_auto_start(raw, 0) }
}

/// `body` given `text`'s bytes as a C string, or `nil` when there is no text.
private func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString(body)
}
