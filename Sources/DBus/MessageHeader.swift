/// A message's header as the wire format carries it: what kind of message
/// it is, its flags, its serial and its header fields.
///
/// `WireFormat` writes a header and a body as bytes and reads them back,
/// checking everything the specification requires of a message.
public struct MessageHeader: Sendable, Equatable {
    /// Call, reply, error or signal.
    public var kind: Message.Kind
    /// The flag bits.
    public var flags: Flags = []
    /// The sender's number for the message; never 0 on the wire.
    public var serial: UInt32
    /// The object a call is for or a signal comes from.
    public var path: ObjectPath?
    /// The interface of a call (optional) or of a signal.
    public var interface: InterfaceName?
    /// The method called or the signal sent.
    public var member: MemberName?
    /// An error's name.
    public var errorName: ErrorName?
    /// The serial of the call a reply or an error answers.
    public var replySerial: UInt32?
    /// Whom the message is for; the bus routes by it.
    public var destination: BusName?
    /// Who sent it: filled in by the bus, so a peer cannot choose it.
    public var sender: BusName?
    /// The body's types: written from the body, read and checked against it.
    public var signature: Signature = .empty

    /// A header of `kind` with `serial`; the other fields as given.
    public init(
        kind: Message.Kind, flags: Flags = [], serial: UInt32, path: ObjectPath? = nil, interface: InterfaceName? = nil,
        member: MemberName? = nil, errorName: ErrorName? = nil, replySerial: UInt32? = nil, destination: BusName? = nil,
        sender: BusName? = nil, signature: Signature = .empty
    ) {
        self.kind = kind
        self.flags = flags
        self.serial = serial
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.replySerial = replySerial
        self.destination = destination
        self.sender = sender
        self.signature = signature
    }

    /// The header's flag bits.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        /// Flags from the header's flag byte; bits the specification does not define are kept.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The sender wants no reply (`NO_REPLY_EXPECTED`).
        public static let noReplyExpected = Flags(rawValue: 0x1)
        /// The bus must not start the destination (`NO_AUTO_START`).
        public static let noAutoStart = Flags(rawValue: 0x2)
        /// The caller is prepared to wait for an authorisation dialog.
        public static let allowInteractiveAuthorization = Flags(rawValue: 0x4)
    }

    /// The header fields a message of `kind` cannot go without, by the
    /// specification's table: what is missing, or `nil`.
    var missingField: String? {
        switch kind {
        case .methodCall:
            if path == nil { return "a method call has no PATH" }
            if member == nil { return "a method call has no MEMBER" }
        case .signal:
            if path == nil { return "a signal has no PATH" }
            if interface == nil { return "a signal has no INTERFACE" }
            if member == nil { return "a signal has no MEMBER" }
        case .error:
            if errorName == nil { return "an error has no ERROR_NAME" }
            if replySerial == nil { return "an error has no REPLY_SERIAL" }
        case .methodReturn:
            if replySerial == nil { return "a reply has no REPLY_SERIAL" }
        }
        return nil
    }
}
