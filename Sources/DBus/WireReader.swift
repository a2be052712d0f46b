import Glibc

/// Reads a message in the wire format, checking every byte it reads: a
/// failed check throws `InvalidArgs` naming the rule and the offset, and
/// nothing it reads can trap or read outside the buffer.
struct WireReader {
    private let buffer: UnsafeRawBufferPointer
    private let bigEndian: Bool
    /// Where the next read starts, from the message's start.
    private var position: Int
    /// The body's length and the header fields', from the fixed header.
    private let bodyLength: Int
    private let fieldsLength: Int

    /// Starts reading `message`, whose fixed header must be complete and
    /// whose lengths must add up to exactly its size.
    init(message buffer: UnsafeRawBufferPointer) throws(DBusError) {
        guard buffer.count >= WireFormat.fixedHeaderSize else { throw Self.failure("the message is shorter than its fixed header", at: 0) }
        self.buffer = buffer
        let total = try WireFormat.messageLength(UnsafeRawBufferPointer(rebasing: buffer[0..<WireFormat.fixedHeaderSize]))
        guard total == buffer.count else {
            throw Self.failure("the header's lengths add up to \(total) bytes, but the message has \(buffer.count)", at: 4)
        }
        bigEndian = buffer[0] == UInt8(ascii: "B")
        position = 4
        func word(at offset: Int) -> Int {
            let raw = buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return Int(buffer[0] == UInt8(ascii: "B") ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
        }
        bodyLength = word(at: 4)
        fieldsLength = word(at: 12)
    }

    /// Starts reading a body written alone (`EncodedBody`): little-endian,
    /// from an 8-aligned start, as a message's body.
    init(body buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
        bigEndian = false
        position = 0
        bodyLength = buffer.count
        fieldsLength = 0
    }

    // MARK: The header

    /// The fixed header and the header fields, up to the body. Names found
    /// in `recent` are taken from it; those read are kept there.
    mutating func readHeader(recent: inout RecentNames) throws(DBusError) -> MessageHeader {
        guard let kind = Message.Kind(wireCode: buffer[1]) else { throw failure("the message type is \(buffer[1])", at: 1) }
        guard buffer[3] == WireFormat.protocolVersion else { throw failure("the protocol version is \(buffer[3]), not 1", at: 3) }
        position = 8
        let serial = try read(UInt32.self)
        guard serial != 0 else { throw failure("the serial is 0", at: 8) }
        let flags = MessageHeader.Flags(rawValue: buffer[2])
        position = WireFormat.fixedHeaderSize
        let end = position + fieldsLength
        guard end <= buffer.count else { throw failure("the header fields overrun the message", at: 12) }
        let fields = UnsafeRawBufferPointer(rebasing: buffer[position..<end])
        // Fields the same, byte for byte, as a header read lately (its
        // reply serial apart) read the same: that header is taken, with
        // this message's serial, flags and reply serial.
        if case (var header, let replySerialAt, let hasSignature)? = recent.header(kind: kind, bigEndian: bigEndian, fields: fields) {
            header.serial = serial
            header.flags = flags
            if let at = replySerialAt {
                position = WireFormat.fixedHeaderSize + at
                let answered = try read(UInt32.self)
                // At the field's start, as when the fields are read one by one.
                guard answered != 0 else { throw failure("the REPLY_SERIAL field is 0", at: WireFormat.fixedHeaderSize + at - 4) }
                header.replySerial = answered
            }
            position = end
            try align(8)
            if !hasSignature, bodyLength > 0 { throw failure("the message has a body but no SIGNATURE field", at: position) }
            return header
        }
        // The fields are read into the header in place, one field per call
        // of `readField`: a throw there has nothing of its own to release.
        // With the fields in locals here, each of the thirteen throws
        // released all seven names first: 101 releases, and a 7.5 KB
        // function of which a forwarded call fetched 102 cache lines.
        var header = MessageHeader(kind: kind, flags: flags, serial: serial)
        var seen: UInt16 = 0
        var replySerialAt: Int?
        while position < end { try readField(into: &header, seen: &seen, recent: &recent, replySerialAt: &replySerialAt) }
        guard position == end else { throw failure("the header fields overrun their length", at: end) }
        if let missing = header.missingField { throw failure(missing, at: WireFormat.fixedHeaderSize) }
        try align(8)
        let hasSignature = seen & 1 << WireFormat.Field.signature.rawValue != 0
        if !hasSignature, bodyLength > 0 {
            throw failure("the message has a body but no SIGNATURE field", at: position)
        }
        recent.keep(RecentNames.KnownHeader(
            kind: kind, bigEndian: bigEndian, fields: fields, replySerialAt: replySerialAt.map { $0 - WireFormat.fixedHeaderSize },
            hasSignature: hasSignature, header: header))
        return consume header
    }

    /// One header field, read into `header`; `seen` has a bit for each
    /// field code read so far, so that none is read twice.
    @inline(never)
    private mutating func readField(
        into header: inout MessageHeader, seen: inout UInt16, recent: inout RecentNames, replySerialAt: inout Int?
    ) throws(DBusError) {
        try align(8)
        let at = position
        let code = try readByte()
        guard code != 0 else { throw failure("a header field has code 0", at: at) }
        let type = try readVariantSignature()
        guard let field = WireFormat.Field(rawValue: code) else {
            // Unknown fields are skipped, as the specification asks;
            // libdbus reserves 10 (a container instance) for an object
            // path and refuses anything else there, and so does this.
            if code == WireFormat.containerInstanceField, type != .objectPath {
                throw failure("header field 10 has type '\(type)'", at: at)
            }
            _ = try readValue(type, depth: 1)
            return
        }
        let bit: UInt16 = 1 << code
        guard seen & bit == 0 else { throw failure("header field \(code) appears twice", at: at) }
        seen |= bit
        switch (field, type) {
        case (.path, .objectPath):
            let text = try readName(.objectPath, &recent, "the PATH field is not a valid object path")
            guard text != WireFormat.localPath else { throw failure("the message uses the local path", at: at) }
            header.path = ObjectPath(trusted: text)
        case (.interface, .string):
            let text = try readName(.interfaceName, &recent, "the INTERFACE field is not a valid interface name")
            guard text != WireFormat.localInterface else { throw failure("the message uses the local interface", at: at) }
            header.interface = InterfaceName(trusted: text)
        case (.member, .string):
            header.member = MemberName(trusted: try readName(.memberName, &recent, "the MEMBER field is not a valid member name"))
        case (.errorName, .string):
            header.errorName = ErrorName(trusted: try readName(.interfaceName, &recent, "the ERROR_NAME field is not a valid error name"))
        case (.replySerial, .uint32):
            try align(4)
            replySerialAt = position
            let answered = try read(UInt32.self)
            guard answered != 0 else { throw failure("the REPLY_SERIAL field is 0", at: at) }
            header.replySerial = answered
        case (.destination, .string):
            header.destination = BusName(trusted: try readName(.busName, &recent, "the DESTINATION field is not a valid bus name"))
        case (.sender, .string):
            header.sender = BusName(trusted: try readName(.busName, &recent, "the SENDER field is not a valid bus name"))
        case (.signature, .signature):
            header.signature = try readSignature(recent: &recent)
        case (.unixFDs, .uint32):
            let count = try read(UInt32.self)
            guard count == 0 else { throw failure("the message carries unix file descriptors, which are not supported", at: at) }
        default:
            throw failure("header field \(code) has type '\(type)'", at: at)
        }
    }

    /// Where the body starts, once `readHeader` has returned.
    var bodyOffset: Int { position }

    /// Moves to the body of a message whose header was read before, at
    /// `offset` (a `bodyOffset`).
    mutating func skipHeader(to offset: Int) { position = offset }

    // MARK: The body

    /// The body, which must hold exactly the values `signature` names.
    mutating func readBody(_ signature: Signature) throws(DBusError) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(signature.types.count)
        for type in signature.types { values.append(try readValue(type, depth: 0)) }
        guard position == buffer.count else { throw failure("the body has \(buffer.count - position) bytes past its values", at: position) }
        return values
    }

    /// One value of `type`. `depth` counts the containers around it; the
    /// specification allows 64 (32 arrays and 32 structs, variants counted too).
    private mutating func readValue(_ type: DBusType, depth: Int) throws(DBusError) -> Value {
        guard depth <= Value.maximumNesting else { throw failure("values are nested more than \(Value.maximumNesting) deep", at: position) }
        switch type {
        case .byte: return .byte(try readByte())
        case .boolean:
            let at = position
            let word = try read(UInt32.self)
            guard word <= 1 else { throw failure("a boolean is \(word)", at: at) }
            return .boolean(word == 1)
        case .int16: return .int16(Int16(bitPattern: try read(UInt16.self)))
        case .uint16: return .uint16(try read(UInt16.self))
        case .int32: return .int32(Int32(bitPattern: try read(UInt32.self)))
        case .uint32: return .uint32(try read(UInt32.self))
        case .int64: return .int64(Int64(bitPattern: try read(UInt64.self)))
        case .uint64: return .uint64(try read(UInt64.self))
        case .double: return .double(Double(bitPattern: try read(UInt64.self)))
        case .string: return .string(try readText())
        case .objectPath: return .objectPath(ObjectPath(trusted: try readName(NameRules.objectPath, "an object path is not valid")))
        case .signature: return .signature(try readSignature())
        case .unixFD: throw failure("unix file descriptors are not supported", at: position)
        case .variant:
            let inner = try readVariantSignature()
            return .variant(try readValue(inner, depth: depth + 1))
        case .array(let element):
            if element == .unixFD { throw failure("unix file descriptors are not supported", at: position) }
            var items: [Value] = []
            try readArray(alignment: element.alignment) { reader throws(DBusError) in
                items.append(try reader.readValue(element, depth: depth + 1))
            }
            return .array(element, items)
        case .dictionary(let key, let value):
            var entries: [DictionaryEntry] = []
            try readArray(alignment: 8) { reader throws(DBusError) in
                try reader.align(8)
                let k = try reader.readValue(key, depth: depth + 2)
                entries.append(DictionaryEntry(key: k, value: try reader.readValue(value, depth: depth + 2)))
            }
            return .dictionary(key: key, value: value, entries)
        case .structure(let fields):
            try align(8)
            var values: [Value] = []
            values.reserveCapacity(fields.count)
            for field in fields { values.append(try readValue(field, depth: depth + 1)) }
            return .structure(values)
        }
    }

    /// An array's length, the padding to its first element, and its
    /// elements, each read by `element` until the length is used up exactly.
    private mutating func readArray(alignment: Int, _ element: (inout WireReader) throws(DBusError) -> Void) throws(DBusError) {
        let at = position
        let length = Int(try read(UInt32.self))
        guard length <= WireFormat.maximumArrayLength else { throw failure("an array is longer than 64 MiB", at: at) }
        try align(alignment)
        let end = position + length
        guard end <= buffer.count else { throw failure("an array runs past the message", at: at) }
        while position < end { try element(&self) }
        guard position == end else { throw failure("an array's last element overruns its length", at: at) }
    }

    // MARK: Basic reads

    /// Skips to the next multiple of `alignment`; the bytes skipped must be zero.
    @inline(__always)
    private mutating func align(_ alignment: Int) throws(DBusError) {
        // Most reads are aligned already (every string's length, most fields).
        guard position & (alignment - 1) != 0 else { return }
        let next = (position + alignment - 1) & ~(alignment - 1)
        guard next <= buffer.count else { throw failure("the message ends inside padding", at: position) }
        while position < next {
            guard buffer[position] == 0 else { throw failure("a padding byte is not zero", at: position) }
            position += 1
        }
    }

    @inline(__always)
    private mutating func readByte() throws(DBusError) -> UInt8 {
        guard position < buffer.count else { throw failure("the message ends early", at: position) }
        defer { position += 1 }
        return buffer[position]
    }

    private mutating func read<T: FixedWidthInteger>(_: T.Type) throws(DBusError) -> T {
        try align(MemoryLayout<T>.size)
        guard buffer.count - position >= MemoryLayout<T>.size else { throw failure("the message ends early", at: position) }
        let raw = buffer.loadUnaligned(fromByteOffset: position, as: T.self)
        position += MemoryLayout<T>.size
        return bigEndian ? T(bigEndian: raw) : T(littleEndian: raw)
    }

    /// A string's text: valid UTF-8 with no NUL, and a NUL after it.
    private mutating func readText() throws(DBusError) -> String {
        let at = position
        return try makeString(try readTextBytes(), at: at)
    }

    /// A name's text (an object path, or a string holding a bus, interface,
    /// member or error name), checked by `rule` on its bytes: valid names
    /// are ASCII, so no `String` is made of an invalid one, and the one made
    /// of a valid one needs no UTF-8 check.
    private mutating func readName(_ rule: (UnsafeBufferPointer<UInt8>) -> String?, _ reason: String) throws(DBusError) -> String {
        let at = position
        let bytes = try readTextBytes()
        guard rule(bytes) == nil else { throw failure(reason, at: at) }
        return String(unsafeUninitializedCapacity: bytes.count) { $0.initialize(fromContentsOf: bytes) }
    }

    /// `readName` for a header field, through the names read lately.
    ///
    /// Not inlined: inlined at its six calls, each header field read ran a
    /// copy of its own, and a forwarded call fetched 58 more instruction-cache
    /// lines (2,261 against 2,203 on the caller's wait, `bench/profile daemon
    /// --on-wait`) and ran 1,400 more instructions.
    @inline(never)
    private mutating func readName(_ kind: RecentNames.Kind, _ recent: inout RecentNames, _ reason: String) throws(DBusError) -> String {
        let at = position
        let bytes = try readTextBytes()
        if let known = recent.find(bytes, kind: kind) { return known }
        guard kind.rule(bytes) == nil else { throw failure(reason, at: at) }
        let name = String(unsafeUninitializedCapacity: bytes.count) { $0.initialize(fromContentsOf: bytes) }
        recent.keep(name, kind: kind)
        return name
    }

    /// A length-prefixed string's bytes, with no NUL among them and one after them.
    private mutating func readTextBytes() throws(DBusError) -> UnsafeBufferPointer<UInt8> {
        let at = position
        let length = Int(try read(UInt32.self))
        guard length < buffer.count - position else { throw failure("a string runs past the message", at: at) }
        return try textBytes(length: length, at: at)
    }

    /// A signature: a one-byte length, its text and a NUL, valid as a signature.
    private mutating func readSignature() throws(DBusError) -> Signature {
        var none = RecentNames.none
        return try readSignature(recent: &none)
    }

    /// A signature, taken from `recent` when the same bytes were read
    /// (and found valid) before; kept there when parsed.
    private mutating func readSignature(recent: inout RecentNames) throws(DBusError) -> Signature {
        let at = position
        let length = Int(try readByte())
        guard length < buffer.count - position else { throw failure("a signature runs past the message", at: at) }
        let bytes = try textBytes(length: length, at: at)
        if let kept = recent.findSignature(bytes) { return kept }
        let signature: Signature
        do {
            signature = try Signature(try makeString(bytes, at: at))
        } catch {
            throw failure("a signature is not valid", at: at)
        }
        recent.keep(signature)
        return signature
    }

    /// A variant's signature, which must be one complete type. A basic
    /// type's (nearly every variant) is read without making a `String`.
    private mutating func readVariantSignature() throws(DBusError) -> DBusType {
        let at = position
        if buffer.count - position >= 3, buffer[position] == 1, buffer[position + 2] == 0,
           let basic = DBusType(singleCode: buffer[position + 1])
        {
            position += 3
            return basic
        }
        let signature = try readSignature()
        guard signature.types.count == 1 else { throw failure("a variant's signature is not one complete type", at: at) }
        return signature.types[0]
    }

    /// The `length` bytes at `position`, which must hold no NUL and be
    /// followed by one; `position` moves past the NUL.
    private mutating func textBytes(length: Int, at: Int) throws(DBusError) -> UnsafeBufferPointer<UInt8> {
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[position..<position + length]).assumingMemoryBound(to: UInt8.self)
        guard buffer[position + length] == 0 else { throw failure("a string is not followed by a NUL", at: at) }
        guard length == 0 || memchr(bytes.baseAddress!, 0, length) == nil else { throw failure("a string contains a NUL", at: at) }
        position += length + 1
        return bytes
    }

    /// `bytes` as a `String`, which they must be valid UTF-8 for. ASCII
    /// (nearly every string on the bus) is copied as it is.
    private func makeString(_ bytes: UnsafeBufferPointer<UInt8>, at: Int) throws(DBusError) -> String {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return String(unsafeUninitializedCapacity: bytes.count) { $0.initialize(fromContentsOf: bytes) }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw failure("a string is not valid UTF-8", at: at) }
        return text
    }

    private func failure(_ reason: String, at offset: Int) -> DBusError { Self.failure(reason, at: offset) }

    private static func failure(_ reason: String, at offset: Int) -> DBusError {
        .invalidArgs("invalid message: \(reason) (at byte \(offset))")
    }
}
