/// The D-Bus wire format (the specification's "Marshaling (Wire Format)"):
/// a message as bytes, and bytes as a message, in Swift.
///
///     let bytes = try WireFormat.encode(header, body: [.string(url)])
///     let (header, body) = try WireFormat.decode(bytes)
///
/// Writing is little-endian; reading takes either byte order. Reading checks
/// what libdbus's loader checks before a message is dispatched: the fixed
/// header, each header field's type and value, the fields the message's kind
/// requires, every alignment padding byte (zero), every length and the
/// nesting limits, booleans, UTF-8 and names, the body against its signature
/// with nothing left over, and no use of the bus's local path or interface,
/// which only libdbus itself may send. Unix file descriptors are refused, as
/// everywhere in this module. `Tests/DBusTests/WireFormatTests` holds it to
/// libdbus's own reading and writing, and `scripts/fuzz wire` to libdbus's
/// verdict on arbitrary bytes.
public enum WireFormat {
    /// A whole message: 128 MiB.
    static let maximumMessageSize = 1 << 27
    /// One array's contents, and the header's field array: 64 MiB.
    static let maximumArrayLength = 1 << 26
    /// The fixed part before the header fields: endianness, kind, flags,
    /// version, body length, serial, and the fields' array length.
    static let fixedHeaderSize = 16
    static let protocolVersion: UInt8 = 1

    /// The bus's own path and interface, which only arrive from libdbus itself.
    static let localPath = "/org/freedesktop/DBus/Local"
    static let localInterface = "org.freedesktop.DBus.Local"

    /// A field code the specification leaves unassigned and libdbus 1.13 and
    /// later reserve for a container instance's object path.
    static let containerInstanceField: UInt8 = 10

    /// The header fields' codes.
    enum Field: UInt8 {
        case path = 1, interface, member, errorName, replySerial, destination, sender, signature, unixFDs
    }

    /// The message `header` describes with `body`, as bytes. The signature
    /// written is the body's (the header's own is ignored).
    /// - Throws: `InvalidArgs` for a header that lacks a field its kind
    ///   requires, a value that cannot be sent (see `Value`), or a message
    ///   over the size limits. (A serial of 0 is written as it is: a message
    ///   not yet sent has none, and a connection numbers it as it sends it.)
    public static func encode(_ header: MessageHeader, body: [Value]) throws(DBusError) -> [UInt8] {
        for value in body {
            if let problem = value.problem() { throw .invalidArgs("cannot send value: \(problem)") }
        }
        return try encode(header, checkedBody: body)
    }

    /// The message `header` describes with a body written as it was made
    /// (`EncodedBody`, checked then): the bytes `encode(_:body:)` writes for its values.
    /// - Throws: `InvalidArgs` for a header that lacks a field its kind
    ///   requires, or a message over the size limits.
    public static func encode(_ header: MessageHeader, body: EncodedBody) throws(DBusError) -> [UInt8] {
        try encode(header, encodedBody: body)
    }

    /// `encode` of a body whose values were checked when its message was made,
    /// with `serial` and `flags` in place of the header's when given (a
    /// message numbered as it is sent, without a copy of its header).
    static func encode(
        _ header: MessageHeader, serial: UInt32? = nil, flags: MessageHeader.Flags? = nil, checkedBody body: [Value]
    ) throws(DBusError) -> [UInt8] {
        try written(header, serial: serial, flags: flags, checkedBody: body).finish()
    }

    /// `encode(_:serial:flags:encodedBody:)` into an array.
    static func encode(
        _ header: MessageHeader, serial: UInt32? = nil, flags: MessageHeader.Flags? = nil, encodedBody body: EncodedBody
    ) throws(DBusError) -> [UInt8] {
        try written(header, serial: serial, flags: flags, encodedBody: body).finish()
    }

    /// The message `encode` writes, left in the writer: a message sent is
    /// sent from there (`Message.withWireBytes`), with no array made and
    /// filled with a copy of it first.
    static func written(
        _ header: MessageHeader, serial: UInt32? = nil, flags: MessageHeader.Flags? = nil, checkedBody body: [Value]
    ) throws(DBusError) -> WireWriter {
        // One buffer: the header, then the body, whose length is written
        // into the fixed header once it is known.
        // Room for a typical call (openurld's HandleURL is 272 bytes) without growing.
        var writer = WireWriter(capacity: 512)
        let fields = try writer.beginMessage(header, serial: serial, flags: flags)
        if !body.isEmpty {
            // The body's types written as a signature, with no `String` made of it.
            writer.beginSignatureField()
            try writer.appendSignature(of: body)
        }
        let bodyStart = try writer.endFields(fields)
        for value in body { try writer.append(value) }
        return try writer.finishMessage(bodyStart: bodyStart)
    }

    /// `written` of a body written as it was made (`EncodedBody`), as `written`
    /// of its values would write it.
    static func written(
        _ header: MessageHeader, serial: UInt32? = nil, flags: MessageHeader.Flags? = nil, encodedBody body: EncodedBody
    ) throws(DBusError) -> WireWriter {
        var writer = WireWriter(capacity: 512)
        let fields = try writer.beginMessage(header, serial: serial, flags: flags)
        if !body.bytes.isEmpty {
            writer.beginSignatureField()
            writer.appendSignatureText(body.signature.rawValue)
        }
        let bodyStart = try writer.endFields(fields)
        body.bytes.withUnsafeBufferPointer { writer.appendBytes($0) }
        return try writer.finishMessage(bodyStart: bodyStart)
    }

    /// The header of the message `bytes` hold, checked, and where its body
    /// starts; the body is left for `decodeBody`.
    static func decodeHeader(_ bytes: [UInt8], recent: inout RecentNames) throws(DBusError) -> (header: MessageHeader, bodyOffset: Int) {
        let read = try reading(bytes) { reader throws(DBusError) in
            ReadHeader(header: try reader.readHeader(recent: &recent), bodyOffset: reader.bodyOffset)
        }
        return (read.header, read.bodyOffset)
    }

    /// The body of the message `bytes` hold, whose header `decodeHeader`
    /// read: checked against `signature` with nothing left over.
    static func decodeBody(_ bytes: [UInt8], at offset: Int, signature: Signature) throws(DBusError) -> [Value] {
        try reading(bytes) { reader throws(DBusError) in
            reader.skipHeader(to: offset)
            return try reader.readBody(signature)
        }
    }

    /// The values of a body written alone (`EncodedBody`), checked against
    /// `signature` with nothing left over, as a message's body is.
    static func decode(body bytes: [UInt8], signature: Signature) throws(DBusError) -> [Value] {
        var failure: DBusError?
        let values = bytes.withUnsafeBytes { buffer -> [Value]? in
            do throws(DBusError) {
                var reader = WireReader(body: buffer)
                return try reader.readBody(signature)
            } catch {
                failure = error
                return nil
            }
        }
        guard let values else { throw failure ?? .invalidArgs("invalid body") }
        return values
    }

    /// `read` given a reader of `bytes`. Its result should be a struct or an
    /// array, not a tuple: a tuple's type metadata is looked up at run time
    /// on every call through a generic closure.
    private static func reading<Read>(_ bytes: [UInt8], _ read: (inout WireReader) throws(DBusError) -> Read) throws(DBusError) -> Read {
        var failure: DBusError?
        let result = bytes.withUnsafeBytes { buffer -> Read? in
            do throws(DBusError) {
                var reader = try WireReader(message: buffer)
                return try read(&reader)
            } catch {
                failure = error
                return nil
            }
        }
        guard let result else { throw failure ?? .invalidArgs("invalid message") }
        return result
    }

    /// How many bytes a message takes in all, from its first 16.
    /// - Throws: `InvalidArgs` for an endianness byte that is neither, or
    ///   lengths past the limits.
    static func messageLength(_ fixedHeader: UnsafeRawBufferPointer) throws(DBusError) -> Int {
        let big: Bool
        switch fixedHeader[0] {
        case UInt8(ascii: "l"): big = false
        case UInt8(ascii: "B"): big = true
        default: throw .invalidArgs("invalid message: the endianness byte is \(describe(byte: fixedHeader[0])) (at byte 0)")
        }
        func word(at offset: Int) -> Int {
            let raw = fixedHeader.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return Int(big ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
        }
        let fieldsLength = word(at: 12)
        guard fieldsLength <= maximumArrayLength else { throw .invalidArgs("invalid message: the header fields are longer than 64 MiB (at byte 12)") }
        let total = (fixedHeaderSize + fieldsLength + 7) & ~7 + word(at: 4)
        guard total <= maximumMessageSize else { throw .invalidArgs("invalid message: the message is longer than 128 MiB (at byte 4)") }
        return total
    }

    /// The header and body of the message `bytes` hold, all of it checked.
    /// - Throws: `InvalidArgs` saying what is wrong and at which offset.
    public static func decode(_ bytes: [UInt8]) throws(DBusError) -> (header: MessageHeader, body: [Value]) {
        let message = try reading(bytes) { reader throws(DBusError) in
            var recent = RecentNames.none
            let header = try reader.readHeader(recent: &recent)
            return DecodedMessage(header: header, body: try reader.readBody(header.signature))
        }
        return (message.header, message.body)
    }
}

extension WireWriter {
    /// The fixed header and the header fields but the signature, which
    /// the body's writer adds (`beginSignatureField`) before `endFields`.
    /// - Throws: `InvalidArgs` for a header that lacks a field its kind requires.
    fileprivate mutating func beginMessage(
        _ header: MessageHeader, serial: UInt32?, flags: MessageHeader.Flags?
    ) throws(DBusError) -> ArrayStart {
        if let missing = header.missingField { throw .invalidArgs("cannot encode the message: \(missing)") }
        appendByte(UInt8(ascii: "l"))
        appendByte(header.kind.wireCode)
        appendByte((flags ?? header.flags).rawValue)
        appendByte(WireFormat.protocolVersion)
        append(UInt32(0))  // the body's length, by `finishMessage`
        append(serial ?? header.serial)
        // The header fields, written in line: a closure writing them held a copy of the header.
        let fields = beginArray(alignment: 8)
        appendField(.path, UInt8(ascii: "o"), header.path?.rawValue)
        appendField(.interface, UInt8(ascii: "s"), header.interface?.rawValue)
        appendField(.member, UInt8(ascii: "s"), header.member?.rawValue)
        appendField(.errorName, UInt8(ascii: "s"), header.errorName?.rawValue)
        if let replySerial = header.replySerial {
            pad(to: 8)
            appendByte(WireFormat.Field.replySerial.rawValue)
            appendSignatureCode(UInt8(ascii: "u"))
            append(replySerial)
        }
        appendField(.destination, UInt8(ascii: "s"), header.destination?.rawValue)
        appendField(.sender, UInt8(ascii: "s"), header.sender?.rawValue)
        return fields
    }

    /// The signature field's code and type; the signature follows.
    fileprivate mutating func beginSignatureField() {
        pad(to: 8)
        appendByte(WireFormat.Field.signature.rawValue)
        appendSignatureCode(UInt8(ascii: "g"))
    }

    /// Ends the header fields `fields` began; the body starts where this returns.
    fileprivate mutating func endFields(_ fields: ArrayStart) throws(DBusError) -> Int {
        try endArray(fields)
        pad(to: 8)
        return count
    }

    /// The message written, its body's length (from `bodyStart`) in place.
    /// - Throws: `InvalidArgs` for a message over 128 MiB.
    fileprivate consuming func finishMessage(bodyStart: Int) throws(DBusError) -> WireWriter {
        guard count <= WireFormat.maximumMessageSize else {
            throw .invalidArgs("cannot encode the message: it is longer than 128 MiB")
        }
        patch(UInt32(count - bodyStart), at: 4)
        return self
    }

    /// A header field holding a string or an object path, when there is one.
    private mutating func appendField(_ field: WireFormat.Field, _ code: UInt8, _ text: String?) {
        guard let text else { return }
        pad(to: 8)
        appendByte(field.rawValue)
        appendSignatureCode(code)
        appendText(text)
    }
}

/// What `decodeHeader` read, on its way out of the buffer's closure.
private struct ReadHeader {
    let header: MessageHeader
    let bodyOffset: Int
}

/// What `decode` read, on its way out of the buffer's closure.
private struct DecodedMessage {
    let header: MessageHeader
    let body: [Value]
}

extension Message.Kind {
    /// The message-type byte.
    var wireCode: UInt8 {
        switch self {
        case .methodCall: 1
        case .methodReturn: 2
        case .error: 3
        case .signal: 4
        }
    }

    /// The kind a message-type byte names; `nil` for 0 and for types the
    /// specification does not define.
    init?(wireCode: UInt8) {
        switch wireCode {
        case 1: self = .methodCall
        case 2: self = .methodReturn
        case 3: self = .error
        case 4: self = .signal
        default: return nil
        }
    }
}

extension DBusType {
    /// The type a one-character signature names: a basic type or a variant.
    init?(singleCode code: UInt8) {
        switch code {
        case UInt8(ascii: "y"): self = .byte
        case UInt8(ascii: "b"): self = .boolean
        case UInt8(ascii: "n"): self = .int16
        case UInt8(ascii: "q"): self = .uint16
        case UInt8(ascii: "i"): self = .int32
        case UInt8(ascii: "u"): self = .uint32
        case UInt8(ascii: "x"): self = .int64
        case UInt8(ascii: "t"): self = .uint64
        case UInt8(ascii: "d"): self = .double
        case UInt8(ascii: "s"): self = .string
        case UInt8(ascii: "o"): self = .objectPath
        case UInt8(ascii: "g"): self = .signature
        case UInt8(ascii: "h"): self = .unixFD
        case UInt8(ascii: "v"): self = .variant
        default: return nil
        }
    }

    /// The boundary a value of this type starts on, in bytes from the
    /// message's start.
    var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .string, .objectPath, .unixFD, .array, .dictionary: 4
        case .int64, .uint64, .double, .structure: 8
        }
    }
}
