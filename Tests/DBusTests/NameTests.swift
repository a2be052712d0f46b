import CDBus
import Testing

@testable import DBus

/// Our validators must agree with libdbus's, which is what would abort on a
/// name we let through.
@Suite struct NameTests {
    static let busNamesCases: [(String, Bool)] = [
        ("org.openurld.Dispatcher1", true), (":1.42", true), (":1.2.3", true), ("a.b", true),
        ("org.foo-bar.Baz", true), ("_a._b", true), (":1", false), ("org", false), ("", false),
        (".org.x", false), ("org..x", false), ("org.x.", false), ("1org.x", false), ("org.1x", false),
        (":1.1x", true), ("org.x/y", false), ("org.x y", false), ("org.é.x", false),
        (String(repeating: "a.", count: 127) + "ab", false), ("a." + String(repeating: "b", count: 253), true),
    ]

    /// The specification requires two elements in every bus name, unique ones
    /// included (and dbus-broker enforces it); libdbus accepts `:1`. Being
    /// stricter than libdbus is the safe direction.
    static let stricterThanLibdbus: Set<String> = [":1"]

    @Test(arguments: busNamesCases)
    func busNames(_ text: String, _ valid: Bool) {
        #expect((BusName(validating: text) != nil) == valid)
        #expect(libdbus(dbus_validate_bus_name, text) == (valid || Self.stricterThanLibdbus.contains(text)))
    }

    static let interfaceNamesCases: [(String, Bool)] = [
        ("org.openurld.Dispatcher1", true), ("org.freedesktop.DBus.Error.Failed", true), ("a.b", true),
        ("org", false), ("org.foo-bar", false), ("org.1x", false), (":1.2", false), ("", false),
        ("org..x", false), ("org.x.", false), ("_x._y", true),
    ]

    @Test(arguments: interfaceNamesCases)
    func interfaceNames(_ text: String, _ valid: Bool) {
        #expect((InterfaceName(validating: text) != nil) == valid)
        #expect((ErrorName(validating: text) != nil) == valid)
        #expect(libdbus(dbus_validate_interface, text) == valid)
        #expect(libdbus(dbus_validate_error_name, text) == valid)
    }

    static let memberNamesCases: [(String, Bool)] = [
        ("OpenURL", true), ("_x", true), ("x1", true), ("1x", false), ("", false), ("a.b", false),
        ("a-b", false), ("a b", false), (String(repeating: "m", count: 255), true),
        (String(repeating: "m", count: 256), false),
    ]

    @Test(arguments: memberNamesCases)
    func memberNames(_ text: String, _ valid: Bool) {
        #expect((MemberName(validating: text) != nil) == valid)
        #expect(libdbus(dbus_validate_member, text) == valid)
    }

    static let pathsCases: [(String, Bool)] = [
        ("/", true), ("/org/openurld/Dispatcher1", true), ("/a_b/c1", true), ("", false), ("a/b", false),
        ("/a/", false), ("//", false), ("/a//b", false), ("/a-b", false), ("/a.b", false), ("/ä", false),
    ]

    @Test(arguments: pathsCases)
    func objectPaths(_ text: String, _ valid: Bool) {
        #expect((ObjectPath(validating: text) != nil) == valid)
        #expect(libdbus(dbus_validate_path, text) == valid)
    }

    static let signaturesCases: [(String, Bool)] = [
        ("", true), ("s", true), ("sa{sv}", true), ("a(uuss)", true), ("aa{sv}", true), ("(i(ii))", true),
        ("a{s}", false), ("a{vs}", false), ("a{(i)s}", false), ("()", false), ("(", false), ("a", false),
        ("{sv}", false), ("z", false), ("a{sv", false), (String(repeating: "a", count: 32) + "i", true),
        (String(repeating: "a", count: 33) + "i", false),
        (String(repeating: "(", count: 33) + "i" + String(repeating: ")", count: 33), false),
        (String(repeating: "i", count: 256), false), ("h", true), ("a{ii}", true),
    ]

    @Test(arguments: signaturesCases)
    func signatures(_ text: String, _ valid: Bool) {
        #expect(((try? Signature(text)) != nil) == valid)
        #expect(libdbus(dbus_signature_validate, text) == valid)
        if let parsed = try? Signature(text) { #expect(Signature(parsed.types).rawValue == text) }
    }

    @Test func errorsNameTheRule() {
        // Through variables: `MemberName("1x")` would be a literal, which traps by design.
        let member = "1x"
        let signature = "a{vs}"
        #expect(throws: DBusError.invalidArgs("\"1x\" is not a valid D-Bus member name: an element starts with a digit")) {
            try MemberName(member)
        }
        let error = #expect(throws: DBusError.self) { try Signature(signature) }
        #expect(error?.message.contains("basic type") == true)
    }

    @Test func matchRulesQuoteApostrophes() {
        let rule = MatchRule(member: "Changed", arguments: [0: "it's"])
        #expect(rule.description == "type='signal',member='Changed',arg0='it'\\''s'")
    }

    private func libdbus(
        _ validate: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t, _ text: String
    ) -> Bool {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        return validate(text, &error) != 0
    }

    /// Names are equal exactly when their text is, compared as bytes:
    /// long ones held in different strings, short ones, and lengths or
    /// bytes that differ.
    @Test func namesAreEqualExactlyWhenTheirBytesAre() {
        let texts = ["org.openurld.Dispatcher1", "org.openurld.Dispatcher2", "org.openurld.Dispatcher10", "org.freedesktop.DBus.Peer",
                     "a.b", "a.c", "org.example.Short", "org.example.Shorter"]
        for first in texts {
            for second in texts {
                // Made apart, so that no two share their storage.
                let a = InterfaceName(trusted: String(decoding: Array(first.utf8), as: UTF8.self))
                let b = InterfaceName(trusted: String(decoding: Array(second.utf8), as: UTF8.self))
                #expect((a == b) == (first == second), "\(first) against \(second)")
                if a == b { #expect(a.hashValue == b.hashValue) }
            }
        }
        #expect(sameBytes("", ""))
        #expect(!sameBytes("/org/openurld/Dispatcher1", "/org/openurld/Dispatcher2"))
    }
}
