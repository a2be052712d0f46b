import SafeText
import Synchronization

/// A D-Bus message: a method call, a reply, an error or a signal.
///
/// A message is a value in Swift: its header (`MessageHeader`) and its body,
/// either the values it was built with or the bytes it arrived as, read
/// (`WireFormat`) when asked for. Nothing in it belongs to a connection or a
/// thread, so any task may make, read, keep or release one; a connection
/// numbers and writes it when it sends it.
public final class Message: Sendable {
    /// The header as built, or as read when the message arrived.
    let header: MessageHeader
    /// Flags set after the message was made (`setNoAutoStart`), added to the header's when it is written.
    private let addedFlags = Atomic<UInt8>(0)
    // The body is either the values the message was built with, or the bytes
    // of the whole message as it came and where its body starts in them.
    // They are plain properties, not an enum's payloads: Swift keeps an
    // enum's case in its payload pointer's spare bits, where LeakSanitizer
    // cannot follow it, and `scripts/leak-check` then reported the bytes of
    // every message alive at exit as leaked.
    /// The values of a message built from them; empty for one that arrived.
    private let values: [Value]
    /// The body of a message built with one written as it was made (an
    /// optional struct: `nil` is a pointer no allocation has, not a tag in
    /// a pointer's spare bits).
    private let encoded: EncodedBody?
    /// All the bytes of a message that arrived; empty for one built.
    private let wire: [UInt8]
    /// Where the body starts in `wire`.
    private let bodyOffset: Int

    init(header: MessageHeader, values: [Value]) {
        self.header = header
        self.values = values
        self.encoded = nil
        self.wire = []
        self.bodyOffset = 0
    }

    init(header: MessageHeader, body: EncodedBody) {
        self.header = header
        self.values = []
        self.encoded = body
        self.wire = []
        self.bodyOffset = 0
    }

    /// A message as it arrived: its header read and checked, its body left
    /// in its bytes until `arguments()` reads it. Names in `recent` (the
    /// connection's) are reused.
    /// - Throws: `InvalidArgs` when the header is not valid.
    init(received bytes: [UInt8], recent: inout RecentNames) throws(DBusError) {
        let (header, offset) = try WireFormat.decodeHeader(bytes, recent: &recent)
        self.header = header
        self.values = []
        self.encoded = nil
        self.wire = bytes
        self.bodyOffset = offset
    }

    /// What kind of message this is.
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal
    }

    /// Whether this is a call, a reply, an error or a signal.
    public var kind: Kind { header.kind }
    /// The unique name of the sending connection, when the bus filled it in.
    public var sender: BusName? { header.sender }
    /// The name the message was sent to, if any.
    public var destination: BusName? { header.destination }
    /// The object path of a call or a signal.
    public var path: ObjectPath? { header.path }
    /// The interface of a call or a signal.
    public var interface: InterfaceName? { header.interface }
    /// The member of a call or a signal.
    public var member: MemberName? { header.member }
    /// The error name of an error reply.
    public var errorName: ErrorName? { header.errorName }
    /// The signature of the body.
    public var signature: Signature {
        if !wire.isEmpty { return header.signature }
        return encoded?.signature ?? Signature(values.map(\.type))
    }
    /// The message's serial number, unique per sender; 0 until it is sent.
    public var serial: UInt32 { header.serial }
    /// For a reply, the serial of the call it answers (0 for other messages).
    public var replySerial: UInt32 { header.replySerial ?? 0 }
    /// Whether the sender asked for no reply (`NO_REPLY_EXPECTED`).
    public var expectsReply: Bool { !flags.contains(.noReplyExpected) }
    /// The header's flags with those added since.
    var flags: MessageHeader.Flags {
        header.flags.union(MessageHeader.Flags(rawValue: addedFlags.load(ordering: .relaxed)))
    }

    /// The body, decoded.
    /// - Throws: `InvalidArgs` when the body does not hold what its
    ///   signature says, or holds a type this module does not support.
    public func arguments() throws(DBusError) -> [Value] {
        if !wire.isEmpty { return try WireFormat.decodeBody(wire, at: bodyOffset, signature: header.signature) }
        guard let encoded else { return values }
        return try WireFormat.decode(body: encoded.bytes, signature: encoded.signature)
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

    /// The message as bytes with `serial`: the bytes it came as (whose own
    /// serial is kept), or its header and values written.
    func wireBytes(serial: UInt32) throws(DBusError) -> [UInt8] {
        guard wire.isEmpty else { return wire }
        if let encoded { return try WireFormat.encode(header, serial: serial, flags: flags, encodedBody: encoded) }
        return try WireFormat.encode(header, serial: serial, flags: flags, checkedBody: values)
    }

    /// `body` given the bytes `wireBytes` makes, where they are written: a
    /// message sent is not copied into an array of its own on the way.
    /// Inlined with its closure: a closure context made for a call held its
    /// captures strongly, and the loop (`EventLoop.send`), which has weak
    /// references, was retained and released on the runtime's slow path.
    @inline(__always)
    func withWireBytes<Result>(serial: UInt32, _ body: (UnsafeRawBufferPointer) -> Result) throws(DBusError) -> Result {
        guard wire.isEmpty else { return wire.withUnsafeBytes(body) }
        if let encoded { return try WireFormat.written(header, serial: serial, flags: flags, encodedBody: encoded).withBytes(body) }
        return try WireFormat.written(header, serial: serial, flags: flags, checkedBody: values).withBytes(body)
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
        try checked(arguments)
        return Message(
            header: MessageHeader(kind: .methodCall, serial: 0, path: path, interface: interface, member: member, destination: destination),
            values: arguments)
    }

    /// A method call whose body was written as it was made, checked then.
    public static func methodCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName, body: EncodedBody
    ) -> Message {
        Message(
            header: MessageHeader(kind: .methodCall, serial: 0, path: path, interface: interface, member: member, destination: destination),
            body: body)
    }

    /// A signal.
    public static func signal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [Value] = []
    ) throws(DBusError) -> Message {
        try checked(arguments)
        return Message(header: MessageHeader(kind: .signal, serial: 0, path: path, interface: interface, member: member), values: arguments)
    }

    /// A successful reply to `call`.
    /// - Throws: `InvalidArgs` when `call` was never sent (a reply names the
    ///   call's serial, and 0 names none).
    public static func reply(to call: Message, arguments: [Value] = []) throws(DBusError) -> Message {
        try call.checkAnswerable()
        try checked(arguments)
        return Message(
            header: MessageHeader(kind: .methodReturn, flags: .noReplyExpected, serial: 0, replySerial: call.serial, destination: call.sender),
            values: arguments)
    }

    /// An error reply to `call`.
    /// - Throws: `InvalidArgs` when `call` was never sent, as `reply(to:arguments:)`.
    public static func errorReply(to call: Message, _ error: DBusError) throws(DBusError) -> Message {
        try call.checkAnswerable()
        // The text often quotes a peer's input, and reaches GIO's dialogs, a
        // terminal, a log: control, bidi and invisible characters (NUL,
        // which would truncate it, among them) are spelled out, as logs spell them.
        return Message(
            header: MessageHeader(kind: .error, flags: .noReplyExpected, serial: 0, errorName: error.name, replySerial: call.serial,
                                  destination: call.sender),
            values: [.string(displayable(error.message))])
    }

    /// Values are checked in full when the message is made, so that a bad
    /// value is the maker's error, never a half-written message later.
    private static func checked(_ values: [Value]) throws(DBusError) {
        for value in values {
            if let problem = value.problem() { throw .invalidArgs("cannot send value: \(problem)") }
        }
    }

    /// A reply carries the serial of the call it answers: refused for a
    /// call never sent, which has none.
    private func checkAnswerable() throws(DBusError) {
        guard serial != 0 else { throw .invalidArgs("cannot answer a message that was never sent: it has no serial") }
    }

    /// Parses a message from its wire format, as it would arrive, checking all of it.
    /// - Throws: `InvalidArgs` when the bytes are not a valid message.
    public static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> Message {
        var recent = RecentNames.none
        let message = try Message(received: bytes, recent: &recent)
        _ = try message.arguments()
        return message
    }

    /// The message in its wire format (serial 0 when it was never sent).
    public func marshal() -> [UInt8] {
        (try? wireBytes(serial: serial)) ?? []
    }

    /// Marks the message so that no reply is sent to it.
    func setNoReply() { addedFlags.bitwiseOr(MessageHeader.Flags.noReplyExpected.rawValue, ordering: .relaxed) }

    /// Marks the message so that the bus does not start its destination
    /// through D-Bus activation (`NO_AUTO_START`) when nobody owns the name.
    public func setNoAutoStart() { addedFlags.bitwiseOr(MessageHeader.Flags.noAutoStart.rawValue, ordering: .relaxed) }
}
