import DBus
import DispatcherAPI
import Testing
import TestSupport

/// A small dfuzzer of our own: random, well-formed calls with random
/// signatures and values to every member of the daemon's object. The daemon
/// must answer every one (a reply or a named error) and keep serving.
@Suite(.timeLimit(.minutes(2)))
struct ProtocolFuzzTests {
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

        static let texts = [
            "", "https://example.com/", "javascript:alert(1)", "session", "caller", "schemes", "hosts", "paths",
            "priority", "scope", "name", "activation-token", "*", "*.example.com", "/**", "a\u{202E}b", "\u{FFFE}",
            String(repeating: "x", count: 40_000), "https://" + String(repeating: "a", count: 33_000), "handled",
            "systemAction", "org.openurld.Dispatcher1", "%u", "😀", "file:///etc/passwd", "--help", "-oProxyCommand=x",
        ]

        mutating func type(depth: Int = 0) -> DBusType {
            let basic: [DBusType] = [.byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath, .signature]
            if depth > 3 || chance(55) { return basic[below(basic.count)] }
            switch below(4) {
            case 0: return .array(type(depth: depth + 1))
            case 1: return .dictionary(key: basic[below(basic.count)], value: type(depth: depth + 1))
            case 2: return .structure((0..<(1 + below(3))).map { _ in type(depth: depth + 1) })
            default: return .variant
            }
        }

        mutating func value(of type: DBusType, depth: Int = 0) -> Value {
            switch type {
            case .byte: return .byte(UInt8(truncatingIfNeeded: next()))
            case .boolean: return .boolean(chance(50))
            case .int16: return .int16(Int16(truncatingIfNeeded: next()))
            case .uint16: return .uint16(UInt16(truncatingIfNeeded: next()))
            case .int32: return .int32([Int32.min, -1, 0, 1, Int32.max, Int32(truncatingIfNeeded: next())][below(6)])
            case .uint32: return .uint32([0, 1, UInt32.max, UInt32(truncatingIfNeeded: next())][below(4)])
            case .int64: return .int64(Int64(bitPattern: next()))
            case .uint64: return .uint64(next())
            case .double: return .double([0, -0.0, .infinity, .nan, 1e308, Double(next() % 1000)][below(6)])
            case .string: return .string(Self.texts[below(Self.texts.count)])
            case .objectPath: return .objectPath(["/", "/a", "/org/openurld/Dispatcher1", "/h/x_1"].map { ObjectPath(trusted: $0) }[below(4)])
            case .signature: return .signature(["", "s", "a{sv}", "(ii)"].map { Signature(stringLiteral: $0) }[below(4)])
            case .unixFD: return .uint32(0)
            case .variant:
                let inner = depth > 3 ? DBusType.string : self.type(depth: depth + 1)
                return .variant(value(of: inner, depth: depth + 1))
            case .array(let element):
                return .array(element, (0..<below(4)).map { _ in value(of: element, depth: depth + 1) })
            case .dictionary(let key, let valueType):
                return .dictionary(key: key, value: valueType, (0..<below(4)).map { _ in
                    DictionaryEntry(key: value(of: key, depth: depth + 1), value: value(of: valueType, depth: depth + 1))
                })
            case .structure(let fields):
                return .structure(fields.map { value(of: $0, depth: depth + 1) })
            }
        }
    }

    /// Arguments that often have the right signature, to get past the
    /// signature check into the methods themselves.
    static func wellTyped(_ member: String, _ random: inout Random) -> [Value]? {
        switch member {
        case "OpenURL", "Explain": [.string(Random.texts[random.below(Random.texts.count)])]
        case "UnregisterHandler": [.uint32(UInt32(random.below(6)))]
        case "RegisterHandler": [.objectPath("/h"), .dictionary(key: .string, value: .variant, [
            DictionaryEntry(key: .string("schemes"), value: .variant(.array(.string, [.string(Random.texts[random.below(Random.texts.count)])]))),
        ])]
        default: nil
        }
    }

    @Test func everyCallIsAnsweredAndTheDaemonStaysUp() async throws {
        try await DaemonHarness.with(handlerTimeout: .milliseconds(200)) { d in
            let client = try await d.bus.connect()
            defer { client.close() }
            let members: [(InterfaceName, MemberName)] = [
                ("org.openurld.Dispatcher1", "OpenURL"), ("org.openurld.Dispatcher1", "OpenURLWithOptions"),
                ("org.openurld.Dispatcher1", "RegisterHandler"), ("org.openurld.Dispatcher1", "UnregisterHandler"),
                ("org.openurld.Dispatcher1", "ListHandlers"), ("org.openurld.Dispatcher1", "Explain"),
                ("org.freedesktop.Application", "Open"), ("org.freedesktop.Application", "Activate"),
                ("org.freedesktop.Application", "ActivateAction"), ("org.freedesktop.DBus.Properties", "Get"),
                ("org.freedesktop.DBus.Properties", "GetAll"), ("org.freedesktop.DBus.Properties", "Set"),
                ("org.freedesktop.DBus.Introspectable", "Introspect"), ("org.openurld.Dispatcher1", "NoSuchMember"),
            ]
            var random = Random(state: 0x9E37_79B9_7F4A_7C15)
            var answered = 0
            var errors: [String: Int] = [:]
            let calls = 3000
            for _ in 0..<calls {
                let (interface, member) = members[random.below(members.count)]
                let arguments: [Value]
                if random.chance(40), let typed = Self.wellTyped(member.rawValue, &random) {
                    arguments = typed
                } else {
                    arguments = (0..<random.below(4)).map { _ in random.value(of: random.type()) }
                }
                do throws(DBusError) {
                    _ = try await client.call(DispatcherAPI.busName, DispatcherAPI.objectPath, interface, member, arguments, timeout: .seconds(10))
                    answered += 1
                } catch {
                    #expect(error.name != .noReply, "no answer to \(member) with '\(arguments.signature)'")
                    #expect(error.name != .disconnected)
                    errors[error.name.rawValue, default: 0] += 1
                    answered += 1
                }
            }
            #expect(answered == calls)
            #expect(errors.keys.allSatisfy { $0.hasPrefix("org.freedesktop.DBus.Error.") || $0.hasPrefix("org.openurld.Error.") }, "\(errors)")
            // Still serving, and nothing was registered by garbage.
            let fresh = try await d.bus.connect()
            defer { fresh.close() }
            #expect(try await d.open(fresh, "https://still-alive.example/"))
        }
    }
}
