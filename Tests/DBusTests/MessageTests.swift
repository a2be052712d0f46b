import Testing

@testable import DBus
import WireAgreement

/// A message built here says of itself what libdbus reads from its wire
/// form, and what the module reads back from it.
@Suite struct MessageTests {
    static let destinations: [BusName?] = [nil, .bus, ":1.42", "org.openurld.Handler1"]
    static let bodies: [[Value]] = [
        [],
        [.string("https://example.com/"), .dictionary(key: .string, value: .variant, [
            DictionaryEntry(key: .string("caller"), value: .variant(.string(":1.7"))),
            DictionaryEntry(key: .string("original-url"), value: .variant(.string("https://example.com/"))),
        ])],
    ]

    @Test(arguments: destinations, bodies)
    func builtCallsSayWhatLibdbusReads(_ destination: BusName?, _ body: [Value]) throws {
        let message = try Message.methodCall(
            destination: destination, path: "/h0", interface: "org.openurld.Handler1", member: "HandleURL", arguments: body)
        #expect(message.destination == destination)
        #expect(message.member == "HandleURL")
        let bytes = try message.wireBytes(serial: 7)  // numbered as sending numbers it
        let (header, values) = try libdbusRead(bytes)
        #expect(header.destination == message.destination)
        #expect(header.member == message.member)
        #expect(header.path == message.path && header.interface == message.interface)
        #expect(header.signature == message.signature)
        #expect(values == body)
        let parsed = try Message.demarshal(bytes)
        #expect(parsed.destination == message.destination && parsed.member == message.member && parsed.serial == 7)
        #expect(try parsed.arguments() == body)
    }

    /// Replies and signals read their header too; a reply is addressed to
    /// its call's sender and names its serial.
    @Test func otherMessagesReadTheirHeader() throws {
        let signal = try Message.signal(path: "/", interface: "org.openurld.Dispatcher1", member: "HandlersChanged")
        #expect(signal.member == "HandlersChanged")
        #expect(signal.destination == nil)
        let built = try Message.methodCall(destination: ":1.42", path: "/", interface: nil, member: "Ping")
        var recent = RecentNames()
        let call = try Message(received: try built.wireBytes(serial: 7), recent: &recent)  // as received: a reply needs the call's serial
        let reply = try Message.reply(to: call)
        #expect(reply.member == nil)
        #expect(reply.destination == nil)  // the call's sender, which only the bus fills in
        #expect(reply.replySerial == 7)
        #expect(!reply.expectsReply)
    }

    /// A message is sent from where it is written (`withWireBytes`): the
    /// bytes are `wireBytes`', for a body of values, one written as it was
    /// made, and a message as it arrived (whose own serial stays).
    @Test func itIsSentAsItsBytesRead() throws {
        let values = try Message.methodCall(
            destination: ":1.42", path: "/h0", interface: "org.openurld.Handler1", member: "HandleURL", arguments: Self.bodies[1])
        let encoded = Message.methodCall(
            destination: ":1.42", path: "/h0", interface: "org.openurld.Handler1", member: "HandleURL",
            body: try EncodedBody(signature: "s") { body throws(DBusError) in try body.append("https://example.com/") })
        var recent = RecentNames()
        let received = try Message(received: try values.wireBytes(serial: 3), recent: &recent)
        for message in [values, encoded, received] {
            #expect(try message.withWireBytes(serial: 9) { Array($0) } == (try message.wireBytes(serial: 9)))
        }
        #expect(try received.withWireBytes(serial: 9) { Array($0) } == (try values.wireBytes(serial: 3)))
    }

    /// A reply names its call's serial; libdbus aborts the process when asked
    /// to answer a call that has none (never sent). The wrapper refuses first.
    @Test func aCallNeverSentCannotBeAnswered() throws {
        let unsent = try Message.methodCall(destination: ":1.42", path: "/", interface: nil, member: "Ping")
        #expect(throws: DBusError.self) { try Message.reply(to: unsent) }
        #expect(throws: DBusError.self) { try Message.errorReply(to: unsent, .failed("no")) }
    }
}
