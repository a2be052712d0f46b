import CDBus
import Testing

@testable import DBus
import WireAgreement

/// The wire format in Swift held to libdbus, the reference it is to replace:
/// what one writes the other reads as the same message, and on every
/// message one byte away from a valid one they give the same verdict.
@Suite struct WireFormatTests {
    // MARK: A corpus of messages

    static let bodies: [[Value]] = [
        [],
        [.string("https://example.com/"), .dictionary(key: .string, value: .variant, [
            DictionaryEntry(key: .string("activation-token"), value: .variant(.string("t0k3n"))),
            DictionaryEntry(key: .string("caller"), value: .variant(.string(":1.7"))),
        ])],
        [.byte(7), .boolean(true), .int16(-2), .uint16(3), .int32(-4), .uint32(5), .int64(-6), .uint64(7), .double(0.5)],
        [.string(""), .objectPath("/a/b_c"), .signature("a{sv}(ii)"), .string("ünïcödé, 中文, 🦊")],
        [.byte(1), .int64(9), .byte(2), .structure([.byte(3), .double(-1)]), .array(.int64, [])],
        [.array(.structure([.byte, .string]), [.structure([.byte(1), .string("a")]), .structure([.byte(2), .string("bc")])])],
        [.variant(.variant(.array(.string, [.string("x")]))), .variant(.structure([.int32(1), .variant(.byte(0))]))],
        [.dictionary(key: .uint32, value: .array(.byte), [
            DictionaryEntry(key: .uint32(1), value: .array(.byte, [.byte(1), .byte(2), .byte(3)])),
            DictionaryEntry(key: .uint32(2), value: .array(.byte, [])),
        ])],
        [.array(.array(.double), [.array(.double, [.double(1)]), .array(.double, [])])],
        [nested(60)],
    ]

    /// A value inside `depth` variants.
    static func nested(_ depth: Int) -> Value {
        (0..<depth).reduce(Value.int32(1)) { inner, _ in .variant(inner) }
    }

    static let headers: [MessageHeader] = [
        MessageHeader(kind: .methodCall, serial: 1, path: "/org/openurld/Dispatcher1", interface: "org.openurld.Dispatcher1",
                      member: "OpenURL", destination: "org.openurld.Dispatcher1"),
        MessageHeader(kind: .methodCall, flags: [.noReplyExpected, .noAutoStart], serial: 0x7fff_fffe, path: "/", member: "Ping",
                      destination: ":1.42", sender: ":1.7"),
        MessageHeader(kind: .methodReturn, serial: 9, replySerial: 8, destination: ":1.3", sender: ":1.42"),
        MessageHeader(kind: .error, serial: 10, errorName: "org.openurld.Error.Refused", replySerial: 4, destination: ":1.3"),
        MessageHeader(kind: .signal, serial: 2, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                      member: "NameOwnerChanged", sender: "org.freedesktop.DBus"),
    ]

    // MARK: Agreement on valid messages

    /// libdbus reads what this writes as the same header and body.
    @Test(arguments: headers, bodies)
    func libdbusReadsWhatThisWrites(_ header: MessageHeader, _ body: [Value]) throws {
        let bytes = try WireFormat.encode(header, body: body)
        #expect(bytes.count % 8 == 0 || !body.isEmpty)
        let (read, values) = try libdbusRead(bytes)
        #expect(read == Self.expected(header, body))
        #expect(values == body)
    }

    /// This reads what libdbus writes as the header and body libdbus reads.
    @Test(arguments: headers, bodies)
    func thisReadsWhatLibdbusWrites(_ header: MessageHeader, _ body: [Value]) throws {
        let bytes = try libdbusWrite(header, body)
        let (read, values) = try WireFormat.decode(bytes)
        #expect(read == (try libdbusRead(bytes)).header)
        #expect(read == Self.expected(header, body))
        #expect(values == body)
    }

    /// Big-endian messages are read too (libdbus writes in the host's order,
    /// so this one is written by hand): a call of `Ping` with a `u` and an `s`.
    @Test func bigEndianMessagesAreRead() throws {
        var bytes: [UInt8] = [UInt8(ascii: "B"), 1, 0, 1, 0, 0, 0, 11, 0, 0, 0, 5]
        var fields: [UInt8] = []
        func pad() { while (16 + fields.count) % 8 != 0 { fields.append(0) } }
        fields += [1, 1, UInt8(ascii: "o"), 0, 0, 0, 0, 1] + Array("/".utf8) + [0]
        pad()
        fields += [3, 1, UInt8(ascii: "s"), 0, 0, 0, 0, 4] + Array("Ping".utf8) + [0]
        pad()
        fields += [8, 1, UInt8(ascii: "g"), 0, 2] + Array("us".utf8) + [0]
        bytes += [0, 0, 0, UInt8(fields.count)] + fields
        while bytes.count % 8 != 0 { bytes.append(0) }
        bytes += [0, 0, 1, 2, 0, 0, 0, 2] + Array("hi".utf8) + [0]  // u 258, s "hi": 11 bytes
        let (header, body) = try WireFormat.decode(bytes)
        #expect(header.member == "Ping" && header.serial == 5)
        #expect(body == [.uint32(258), .string("hi")])
        #expect(try libdbusRead(bytes).body == body)
    }

    // MARK: Agreement on invalid messages

    /// Every message one byte away from a valid one (each byte set to each of
    /// a few values) is refused by this exactly when libdbus refuses it, and
    /// read as libdbus reads it otherwise. `wireDisagreement` lists where the
    /// two differ on purpose.
    @Test(arguments: headers.indices)
    func oneByteAwayTheVerdictsAgree(_ index: Int) throws {
        let header = Self.headers[index]
        var disagreements: [String] = []
        for body in Self.bodies.prefix(8) {
            let valid = try WireFormat.encode(header, body: body)
            for offset in valid.indices {
                for replacement: UInt8 in [0, 1, 0x7f, 0xff, valid[offset] &+ 1, valid[offset] &- 1, UInt8(ascii: "l"), UInt8(ascii: "B"), UInt8(ascii: "/")] where replacement != valid[offset] {
                    var bytes = valid
                    bytes[offset] = replacement
                    if let difference = wireDisagreement(on: bytes) {
                        disagreements.append("\(header.kind) body '\(Signature(body.map(\.type)))' byte \(offset) = \(replacement): \(difference)")
                    }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements: \(disagreements.prefix(40).joined(separator: "\n"))")
    }

    /// UTF-8 at its edges: surrogates, overlong forms, the last scalar and
    /// past it, noncharacters. Each string is read by both or by neither.
    @Test func utf8AtItsEdgesAgrees() throws {
        let edges: [[UInt8]] = [
            [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xEF, 0xBF, 0xBE], [0xEF, 0xBF, 0xBF],
            [0xEF, 0xB7, 0x90], [0x7F], [0xC2, 0x80], [0xE2, 0x80, 0xAE], [0x80], [0xC2], [0xE2, 0x80],
        ]
        for edge in edges {
            // A string of as many placeholder bytes, then the edge written over them.
            let placeholder = String(repeating: "x", count: edge.count)
            var bytes = try WireFormat.encode(Self.headers[0], body: [.string(placeholder)])
            bytes.replaceSubrange(bytes.count - 1 - edge.count..<bytes.count - 1, with: edge)
            #expect(wireDisagreement(on: bytes) == nil, "\(edge)")
        }
    }

    /// Messages cut short or padded out are refused by both.
    @Test(arguments: headers.indices)
    func truncatedAndExtendedMessagesAreRefused(_ index: Int) throws {
        let valid = try WireFormat.encode(Self.headers[index], body: Self.bodies[1])
        for length in 0..<valid.count {
            let cut = Array(valid.prefix(length))
            #expect(throws: DBus.DBusError.self) { try WireFormat.decode(cut) }
            #expect(wireDisagreement(on: cut) == nil)
        }
        #expect(throws: DBus.DBusError.self) { try WireFormat.decode(valid + [0]) }
    }

    /// Specific refusals, each a rule of the specification or of libdbus's
    /// loader, with the reason this names.
    @Test func refusalsSayWhy() throws {
        let call = Self.headers[0]
        func refused(_ header: MessageHeader, _ body: [Value], _ edit: (inout [UInt8]) -> Void) throws -> String {
            var bytes = try WireFormat.encode(header, body: body)
            edit(&bytes)
            #expect(wireDisagreement(on: bytes) == nil)
            do {
                _ = try WireFormat.decode(bytes)
                return "accepted"
            } catch {
                return error.message
            }
        }
        // The body's first boolean set to 2.
        let boolean = try refused(call, [.boolean(true)]) { $0[$0.count - 4] = 2 }
        #expect(boolean.contains("a boolean is 2"))
        // A string's byte made invalid UTF-8.
        let utf8 = try refused(call, [.string("abc")]) { $0[$0.count - 2] = 0xff }
        #expect(utf8.contains("not valid UTF-8"))
        // The local path, which only libdbus itself sends (a forged
        // `Disconnected` would close the connection).
        var local = Self.headers[4]
        local.path = ObjectPath(trusted: WireFormat.localPath)
        local.interface = InterfaceName(trusted: WireFormat.localInterface)
        local.member = "Disconnected"
        let forged = try refused(local, []) { _ in }
        #expect(forged.contains("local path"))
        // Serial 0.
        let zero = try refused(call, []) { $0[8] = 0; $0[9] = 0; $0[10] = 0; $0[11] = 0 }
        #expect(zero.contains("serial is 0"), "\(zero)")
        // The SIGNATURE field given a code no field has, so that it is
        // skipped: a body with no signature to read it by.
        let unsigned = try refused(call, [.int32(7)]) { bytes in
            let field: [UInt8] = [8, 1, UInt8(ascii: "g"), 0]
            let at = try! #require((16..<bytes.count).first { Array(bytes[$0..<min($0 + 4, bytes.count)]) == field && $0 % 8 == 0 })
            bytes[at] = 11
        }
        #expect(unsigned.contains("a body but no SIGNATURE field"), "\(unsigned)")
    }

    /// Encoding refuses what cannot be sent, as building a message does.
    @Test func encodingRefusesWhatCannotBeSent() {
        #expect(throws: DBus.DBusError.self) { try WireFormat.encode(Self.headers[0], body: [.string("a\u{0}b")]) }
        #expect(throws: DBus.DBusError.self) { try WireFormat.encode(Self.headers[0], body: [.array(.string, [.int32(1)])]) }
        #expect(throws: DBus.DBusError.self) { try WireFormat.encode(Self.headers[0], body: [Self.nested(65)]) }
        var noMember = Self.headers[0]
        noMember.member = nil
        #expect(throws: DBus.DBusError.self) { try WireFormat.encode(noMember, body: []) }
        // A message not yet sent has serial 0: written as it is, never read.
        var unsent = Self.headers[0]
        unsent.serial = 0
        #expect(throws: DBus.DBusError.self) { try WireFormat.decode(try WireFormat.encode(unsent, body: [])) }
    }

    // MARK: Helpers

    /// `header` as it should read back after `body` was written with it.
    static func expected(_ header: MessageHeader, _ body: [Value]) -> MessageHeader {
        var expected = header
        expected.signature = Signature(body.map(\.type))
        return expected
    }
}

/// A bus socket's bytes cut into whole messages, however the reads split them.
@Suite struct MessageStreamTests {
    static let messages: [[UInt8]] = WireFormatTests.headers.enumerated().map { index, header in
        try! WireFormat.encode(header, body: WireFormatTests.bodies[index % WireFormatTests.bodies.count])
    }

    @Test(arguments: [1, 3, 16, 17, 100, 4096])
    func messagesComeWholeWhateverTheReads(_ readSize: Int) throws {
        let stream = Self.messages.flatMap { $0 }
        var incoming = MessageStream()
        var taken: [[UInt8]] = []
        var offset = 0
        while offset < stream.count {
            let end = min(offset + readSize, stream.count)
            stream[offset..<end].withUnsafeBytes { incoming.append($0) }
            offset = end
            while let message = try incoming.next() { taken.append(message) }
        }
        #expect(taken == Self.messages)
    }

    /// One huge message does not keep its memory for the connection's life.
    @Test func aHugeMessageLeavesNoHugeBuffer() throws {
        let huge = try WireFormat.encode(WireFormatTests.headers[2], body: [.string(String(repeating: "x", count: 4 << 20))])
        var incoming = MessageStream()
        huge.withUnsafeBytes { incoming.append($0) }
        #expect(try incoming.next() == huge)
        #expect(incoming.heldCapacity <= MessageStream.keptCapacity)
    }

    /// A message read alone takes the bytes it came in, and the stream keeps
    /// no buffer: a large read earlier does not make every later message's
    /// buffer (an allocation each, held as long as the message) as large.
    @Test func aMessageReadAloneTakesItsBufferAndLeavesNone() throws {
        let large = try WireFormat.encode(WireFormatTests.headers[2], body: [.string(String(repeating: "x", count: 256 << 10))])
        var incoming = MessageStream()
        large.withUnsafeBytes { incoming.append($0) }
        #expect(try incoming.next() == large)
        #expect(incoming.heldCapacity == 0)
        let small = Self.messages[0]
        small.withUnsafeBytes { incoming.append($0) }
        let taken = try #require(try incoming.next())
        #expect(taken == small)
        #expect(taken.capacity < 4 * small.count)
        #expect(incoming.heldCapacity == 0)
    }

    /// A type the specification does not define is skipped, and what follows it read.
    @Test func aMessageOfAnUndefinedTypeIsSkipped() throws {
        var undefined = Self.messages[0]
        undefined[1] = 9
        var incoming = MessageStream()
        (undefined + Self.messages[1]).withUnsafeBytes { incoming.append($0) }
        #expect(try incoming.next() == Self.messages[1])
        #expect(try incoming.next() == nil)
    }

    @Test func bytesThatCannotStartAMessageAreRefused() {
        var incoming = MessageStream()
        var bytes = Self.messages[0]
        bytes[0] = UInt8(ascii: "x")
        bytes.withUnsafeBytes { incoming.append($0) }
        #expect(throws: DBusError.self) { try incoming.next() }
    }
}

/// Names kept from earlier headers are reused only for the same bytes and
/// the same rule: a member name is never taken for an interface, and a
/// name that fails its rule is never kept.
@Suite struct RecentNamesTests {
    @Test func aNameIsReusedOnlyUnderTheRuleItPassed() throws {
        var recent = RecentNames()
        let call = MessageHeader(kind: .methodCall, serial: 1, path: "/a", interface: "org.example.I", member: "Ping", destination: ":1.5")
        let first = try WireFormat.decodeHeader(try WireFormat.encode(call, body: []), recent: &recent).header
        #expect(first == call)
        let again = try WireFormat.decodeHeader(try WireFormat.encode(call, body: []), recent: &recent).header
        #expect(again == call)
        // "Ping" was kept as a member; as an interface it must still be refused
        // (written here as a trusted name, which the writer does not check).
        let bytes = try WireFormat.encode(
            MessageHeader(kind: .methodCall, serial: 2, path: "/a", interface: InterfaceName(trusted: "Ping"), member: "Ping"), body: [])
        Self.expectRefused(bytes, recent: &recent, saying: "INTERFACE field is not a valid interface name")
    }

    /// Kept names are told apart by their length first: names of one
    /// length must still be compared byte by byte.
    @Test func aNameOfTheSameLengthIsNotTakenForAnother() throws {
        var recent = RecentNames()
        let names: [(InterfaceName, MemberName, BusName)] = [
            ("org.example.A", "Ping", ":1.5"), ("org.example.B", "Pong", ":1.6"), ("org.example.A", "Pong", ":1.5"),
            ("org.example.B", "Ping", ":1.7"), ("org.example.AB", "Pin", ":1.50"),
        ]
        for (serial, (interface, member, sender)) in names.enumerated() {
            let call = MessageHeader(
                kind: .methodCall, serial: UInt32(serial + 1), path: "/a", interface: interface, member: member, sender: sender)
            #expect(try WireFormat.decodeHeader(try WireFormat.encode(call, body: []), recent: &recent).header == call)
        }
    }

    @Test func aSignatureIsReusedOnlyForTheSameText() throws {
        var recent = RecentNames()
        for (serial, signature) in [Signature("s"), "sa{sv}", "s", "ss", "sa{sv}", "b", "as", "a(ss)", "s", "(i)", "a{sv}"].enumerated() {
            let header = MessageHeader(kind: .methodReturn, serial: UInt32(serial + 1), replySerial: 1, signature: signature)
            let body = signature.types.map(Self.example)
            let bytes = try WireFormat.encode(header, body: body)
            let (read, bodyOffset) = try WireFormat.decodeHeader(bytes, recent: &recent)
            #expect(read.signature == signature)
            #expect(try WireFormat.decodeBody(bytes, at: bodyOffset, signature: read.signature) == body)
        }
        // Kept only once found valid: an invalid one is refused each time it comes.
        // A reply with no body, given a SIGNATURE field of "a" (an array of nothing).
        let bare = try WireFormat.encode(MessageHeader(kind: .methodReturn, serial: 99, replySerial: 1), body: [])
        let broken = Self.withSignatureField("a", in: bare)
        Self.expectRefused(broken, recent: &recent, saying: "a signature is not valid", times: 2)
    }

    /// Expects `bytes` refused, read after what `recent` keeps, `times` in a
    /// row (a refusal keeps nothing), saying `reason`; libdbus refuses them too.
    static func expectRefused(
        _ bytes: [UInt8], recent: inout RecentNames, saying reason: String, times: Int = 1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for _ in 0..<times {
            let refused = #expect(throws: DBusError.self, sourceLocation: sourceLocation) { try WireFormat.decodeHeader(bytes, recent: &recent) }
            #expect(refused?.message.contains(reason) == true, "\(String(describing: refused))", sourceLocation: sourceLocation)
        }
        #expect(wireDisagreement(on: bytes) == nil, sourceLocation: sourceLocation)
    }

    /// A value of `type`, for a body to write.
    static func example(_ type: DBusType) -> Value {
        switch type {
        case .boolean: .boolean(true)
        case .int32: .int32(7)
        case .string: .string("x")
        case .array(let element): .array(element, [example(element)])
        case .dictionary(let key, let value): .dictionary(key: key, value: value, [DictionaryEntry(key: example(key), value: example(value))])
        case .structure(let fields): .structure(fields.map(example))
        case .variant: .variant(.string("v"))
        default: .string("?")
        }
    }

    /// `message` (no body, no SIGNATURE field) with a SIGNATURE field holding
    /// `text`, written by hand: the writer makes no invalid signature.
    static func withSignatureField(_ text: String, in message: [UInt8]) -> [UInt8] {
        var bytes = message
        let fieldsLength = Int(bytes[12]) | Int(bytes[13]) << 8
        var fields = Array(bytes[16..<(16 + fieldsLength)])
        while fields.count % 8 != 0 { fields.append(0) }
        fields += [8, 1, UInt8(ascii: "g"), 0, UInt8(text.utf8.count)] + Array(text.utf8) + [0]
        let length = fields.count
        bytes = Array(bytes[0..<12]) + [UInt8(length & 0xFF), UInt8(length >> 8), 0, 0] + fields
        while bytes.count % 8 != 0 { bytes.append(0) }
        return bytes
    }

    /// A header whose fields are the bytes of one read lately is taken from
    /// it, with the message's own serial, flags and reply serial; each of
    /// the checks that depend on more than those bytes is still made.
    @Test func aHeaderWithTheFieldsOfOneReadLatelyIsTheSameHeader() throws {
        var recent = RecentNames()
        for serial in UInt32(1)...4 {
            let reply = MessageHeader(
                kind: .methodReturn, flags: serial.isMultiple(of: 2) ? .noReplyExpected : [], serial: serial, replySerial: 100 + serial,
                destination: ":1.5", sender: ":1.9", signature: "ss")
            let bytes = try WireFormat.encode(reply, body: [.string("handled"), .string("")])
            #expect(try WireFormat.decodeHeader(bytes, recent: &recent).header == reply)
        }
        // A reply serial of 0, written over the one the kept header's fields had.
        let kept = try WireFormat.encode(
            MessageHeader(kind: .methodReturn, serial: 9, replySerial: 0x0A0B_0C0D, destination: ":1.5", sender: ":1.9", signature: "ss"),
            body: [.string("handled"), .string("")])
        var zero = kept
        let at = try #require((16..<kept.count - 3).first { Array(kept[$0..<$0 + 4]) == [0x0D, 0x0C, 0x0B, 0x0A] })
        zero.replaceSubrange(at..<at + 4, with: [0, 0, 0, 0])
        Self.expectRefused(zero, recent: &recent, saying: "the REPLY_SERIAL field is 0", times: 2)
    }

    @Test func theKeptHeaderOfAnotherKindIsNotTaken() throws {
        var recent = RecentNames()
        // A call with no INTERFACE field is valid; a signal with the same fields is not.
        let call = try WireFormat.encode(MessageHeader(kind: .methodCall, serial: 1, path: "/a", member: "Ping"), body: [])
        _ = try WireFormat.decodeHeader(call, recent: &recent)
        var signal = call
        signal[1] = 4
        Self.expectRefused(signal, recent: &recent, saying: "a signal has no INTERFACE")
    }

    @Test func aBodyStillNeedsASignatureWhenTheFieldsAreKnown() throws {
        var recent = RecentNames()
        let call = try WireFormat.encode(MessageHeader(kind: .methodCall, serial: 1, path: "/a", member: "Ping"), body: [])
        _ = try WireFormat.decodeHeader(call, recent: &recent)
        // The same fields, and four bytes of body.
        var withBody = call
        withBody.replaceSubrange(4..<8, with: [4, 0, 0, 0])
        withBody += [1, 0, 0, 0]
        Self.expectRefused(withBody, recent: &recent, saying: "has a body but no SIGNATURE field", times: 2)
    }

    @Test func longFieldsAreNotKept() throws {
        var recent = RecentNames()
        let long = MessageHeader(
            kind: .methodCall, serial: 1, path: ObjectPath(trusted: "/" + String(repeating: "a", count: RecentNames.longestKeptFields)), member: "Ping")
        let bytes = try WireFormat.encode(long, body: [])
        #expect(try WireFormat.decodeHeader(bytes, recent: &recent).header == long)
        let fieldsLength = Int(bytes[12]) | Int(bytes[13]) << 8
        bytes.withUnsafeBytes { all in
            #expect(recent.header(kind: .methodCall, bigEndian: false, fields: UnsafeRawBufferPointer(rebasing: all[16..<16 + fieldsLength])) == nil)
        }
        let short = try WireFormat.encode(MessageHeader(kind: .methodCall, serial: 2, path: "/a", member: "Ping"), body: [])
        _ = try WireFormat.decodeHeader(short, recent: &recent)
        let shortLength = Int(short[12]) | Int(short[13]) << 8
        short.withUnsafeBytes { all in
            #expect(recent.header(kind: .methodCall, bigEndian: false, fields: UnsafeRawBufferPointer(rebasing: all[16..<16 + shortLength])) != nil)
        }
    }

    @Test func moreNamesThanItKeepsAreStillReadRight() throws {
        var recent = RecentNames()
        for index in 0..<(3 * RecentNames().capacity) {
            let header = MessageHeader(kind: .methodCall, serial: UInt32(index + 1), path: ObjectPath(trusted: "/p\(index % 20)"),
                                       member: MemberName(trusted: "M\(index % 7)"), sender: BusName(trusted: ":1.\(index % 23)"))
            #expect(try WireFormat.decodeHeader(try WireFormat.encode(header, body: []), recent: &recent).header == header)
        }
    }
}
