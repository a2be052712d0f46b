import CDBus
import Testing

@testable import DBus

/// A method call built here answers its destination and member from what
/// it was built with, not by asking libdbus (which parses the whole header
/// again once a body was appended). What it answers must be what libdbus
/// reads from the message itself, and from its wire form.
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
    func builtCallsNameWhatLibdbusReads(_ destination: BusName?, _ body: [Value]) throws {
        let message = try Message.methodCall(
            destination: destination, path: "/h0", interface: "org.openurld.Handler1", member: "HandleURL", arguments: body)
        let fromLibdbus = dbus_message_get_destination(message.raw).map { String(cString: $0) }
        #expect(message.destination?.rawValue == fromLibdbus)
        #expect(message.destination == destination)
        #expect(message.member?.rawValue == dbus_message_get_member(message.raw).map { String(cString: $0) })
        #expect(message.member == "HandleURL")
        dbus_message_set_serial(message.raw, 7)  // as sending would; the wire form needs one
        let parsed = try Message.demarshal(message.marshal())
        #expect(parsed.destination == message.destination)
        #expect(parsed.member == message.member)
    }

    /// Messages not built by `methodCall` (replies, signals, anything
    /// received) still read their header.
    @Test func otherMessagesReadTheirHeader() throws {
        let signal = try Message.signal(path: "/", interface: "org.openurld.Dispatcher1", member: "HandlersChanged")
        #expect(signal.member == "HandlersChanged")
        #expect(signal.destination == nil)
        let call = try Message.methodCall(destination: ":1.42", path: "/", interface: nil, member: "Ping")
        dbus_message_set_serial(call.raw, 7)  // a reply needs the serial of a sent call
        let reply = try Message.reply(to: call)
        #expect(reply.member == nil)
        #expect(reply.destination == nil)  // the call's sender, which only the bus fills in
    }

    /// A reply names its call's serial; libdbus aborts the process when asked
    /// to answer a call that has none (never sent). The wrapper refuses first.
    @Test func aCallNeverSentCannotBeAnswered() throws {
        let unsent = try Message.methodCall(destination: ":1.42", path: "/", interface: nil, member: "Ping")
        #expect(throws: DBusError.self) { try Message.reply(to: unsent) }
        #expect(throws: DBusError.self) { try Message.errorReply(to: unsent, .failed("no")) }
    }
}
