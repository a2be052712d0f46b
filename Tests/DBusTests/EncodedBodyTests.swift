import Testing

@testable import DBus
import WireAgreement

/// A body written as it is made (`EncodedBody`) goes out as the same bytes
/// as its values would, libdbus reads it as those values, and it refuses
/// what a `[Value]` body refuses.
@Suite struct EncodedBodyTests {
    /// Strings and dictionaries of string variants, as openurld's `HandleURL` carries them.
    static let cases: [(url: String, entries: [(key: String, value: String)])] = [
        ("https://example.com/", [("activation-token", "t0k3n"), ("caller", ":1.7"), ("caller-app-id", ""), ("original-url", "https://example.com/")]),
        ("", []),
        ("mailto:ünïcödé@中文.example", [("🦊", "a\u{202E}b"), ("", "")]),
        (String(repeating: "x", count: 5000), [("k", String(repeating: "y", count: 3))]),
    ]

    static func values(_ url: String, _ entries: [(key: String, value: String)]) -> [Value] {
        [.string(url), .dictionary(key: .string, value: .variant, entries.map {
            DictionaryEntry(key: .string($0.key), value: .variant(.string($0.value)))
        })]
    }

    static func body(_ url: String, _ entries: [(key: String, value: String)]) throws(DBus.DBusError) -> EncodedBody {
        try EncodedBody(signature: "sa{sv}") { body throws(DBus.DBusError) in
            try body.append(url)
            try body.appendStringVariants { written throws(DBus.DBusError) in
                for (key, value) in entries { try written.append(key, value) }
            }
        }
    }

    @Test(arguments: cases.indices)
    func itIsWrittenAsItsValuesAre(_ index: Int) throws {
        let (url, entries) = Self.cases[index]
        let values = Self.values(url, entries)
        let header = WireFormatTests.headers[0]
        let written = try WireFormat.encode(header, body: try Self.body(url, entries))
        #expect(written == (try WireFormat.encode(header, body: values)))
        // libdbus, the reference, reads the same message.
        let (read, body) = try libdbusRead(written)
        #expect(read == WireFormatTests.expected(header, values))
        #expect(body == values)
    }

    @Test(arguments: cases.indices)
    func aMessageBuiltWithItReadsAsItsValues(_ index: Int) throws {
        let (url, entries) = Self.cases[index]
        let message = Message.methodCall(
            destination: "org.example.Handler", path: "/h0", interface: "org.openurld.Handler1", member: "HandleURL",
            body: try Self.body(url, entries))
        #expect(try message.arguments() == Self.values(url, entries))
        #expect(message.signature == "sa{sv}")
        let built = try Message.methodCall(
            destination: "org.example.Handler", path: "/h0", interface: "org.openurld.Handler1", member: "HandleURL",
            arguments: Self.values(url, entries))
        #expect(message.marshal() == built.marshal())
    }

    @Test func itRefusesWhatAValueBodyRefuses() {
        #expect(throws: DBus.DBusError.invalidArgs("cannot send value: a string contains a NUL character")) {
            try Self.body("a\u{0}b", [])
        }
        #expect(throws: DBus.DBusError.invalidArgs("cannot send value: a string contains a NUL character")) {
            try Self.body("a", [("k\u{0}", "v")])
        }
        #expect(throws: DBus.DBusError.invalidArgs("cannot send value: a string contains a NUL character")) {
            try Self.body("a", [("k", "\u{0}")])
        }
        // Past the sixteen bytes a string keeps in itself, and at either end.
        for text in ["https://example.org/\u{0}", "\u{0}https://example.org/", "https://example.org/a\u{0}b/c/d/e/f"] {
            #expect(throws: DBus.DBusError.invalidArgs("cannot send value: a string contains a NUL character")) {
                try Self.body(text, [])
            }
            #expect(throws: DBus.DBusError.invalidArgs("cannot send value: a string contains a NUL character")) {
                try Self.body("a", [("key", text)])
            }
        }
    }

    @Test func itHoldsToItsSignature() {
        // Another type than the next.
        #expect(throws: DBus.DBusError.invalidArgs("cannot write a a{sv} where the body's signature has a s")) {
            try EncodedBody(signature: "sa{sv}") { body throws(DBus.DBusError) in try body.appendStringVariants { _ throws(DBus.DBusError) in } }
        }
        #expect(throws: DBus.DBusError.invalidArgs("cannot write a s where the body's signature has a a{sv}")) {
            try EncodedBody(signature: "sa{sv}") { body throws(DBus.DBusError) in
                try body.append("a")
                try body.append("b")
            }
        }
        // Past the end.
        #expect(throws: DBus.DBusError.self) {
            try EncodedBody(signature: "s") { body throws(DBus.DBusError) in
                try body.append("a")
                try body.append("b")
            }
        }
        // A type left unwritten.
        #expect(throws: DBus.DBusError.invalidArgs("the body's a{sv} was not written")) {
            try EncodedBody(signature: "sa{sv}") { body throws(DBus.DBusError) in try body.append("a") }
        }
        // A signature past the 255 bytes D-Bus allows, made from types.
        #expect(throws: DBus.DBusError.invalidArgs("cannot send values whose signature is longer than 255 bytes")) {
            try EncodedBody(signature: Signature(Array(repeating: .string, count: 256))) { _ throws(DBus.DBusError) in }
        }
        // The empty body is no body.
        #expect((try? EncodedBody(signature: .empty) { _ throws(DBus.DBusError) in })?.signature == .empty)
    }
}
