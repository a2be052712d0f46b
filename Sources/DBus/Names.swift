import Glibc
import SafeText

/// A string that the D-Bus specification constrains, checked once when made.
///
/// Values of conforming types are valid by construction, so they are written
/// into messages without further checks.
public protocol DBusName: Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The validated text.
    var rawValue: String { get }
    /// Wraps text already known to be valid.
    init(trusted rawValue: String)
    /// Why `text` is not a valid name of this kind, or `nil` when it is.
    static func problem(with text: String) -> String?
    /// What the specification calls this kind of name, for messages.
    static var kind: String { get }
}

extension DBusName {
    /// Validates `text`.
    /// - Throws: `InvalidArgs` naming the rule `text` breaks.
    public init(_ text: String) throws(DBusError) {
        if let problem = Self.problem(with: text) {
            throw .invalidArgs("\(quoted(text)) is not a valid D-Bus \(Self.kind): \(problem)")
        }
        self.init(trusted: text)
    }

    /// Validates `text`, returning `nil` when it is not valid.
    public init?(validating text: String) {
        guard Self.problem(with: text) == nil else { return nil }
        self.init(trusted: text)
    }

    /// A literal in source code is a programmer's promise; breaking it is a bug.
    public init(stringLiteral value: String) {
        precondition(Self.problem(with: value) == nil, "invalid \(Self.kind) literal \(value)")
        self.init(trusted: value)
    }

    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Whether the two are the same name. Every kind of name is ASCII, so
    /// two are equal exactly when their bytes are (and hash alike: the
    /// text's hash is its bytes'), which are compared after their lengths.
    /// `String`'s `==` took its general comparison, some 150 instructions,
    /// for two names longer than fifteen bytes held in different strings:
    /// an interface read from a call against the one exported.
    public static func == (a: Self, b: Self) -> Bool { sameBytes(a.rawValue, b.rawValue) }
}

/// Whether `a` and `b` hold the same UTF-8 bytes: their lengths first, then
/// the bytes where they are (a short string's `==` compares its inline bytes).
func sameBytes(_ a: String, _ b: String) -> Bool {
    let count = a.utf8.count
    guard count == b.utf8.count else { return false }
    guard count > 15 else { return a == b }
    let compared = a.utf8.withContiguousStorageIfAvailable { first in
        b.utf8.withContiguousStorageIfAvailable { second in
            first.baseAddress == second.baseAddress || memcmp(first.baseAddress!, second.baseAddress!, count) == 0
        }
    }
    return (compared ?? nil) ?? (a == b)
}

/// The name of a D-Bus interface, e.g. `org.freedesktop.DBus.Properties`.
public struct InterfaceName: DBusName {
    public let rawValue: String
    public init(trusted rawValue: String) { self.rawValue = rawValue }
    public static let kind = "interface name"
    public static func problem(with text: String) -> String? { text.withUTF8Bytes(NameRules.interfaceName) }
}

/// The name of a D-Bus error, e.g. `org.freedesktop.DBus.Error.Failed`.
/// Error names follow the rules of interface names.
public struct ErrorName: DBusName {
    public let rawValue: String
    public init(trusted rawValue: String) { self.rawValue = rawValue }
    public static let kind = "error name"
    public static func problem(with text: String) -> String? { InterfaceName.problem(with: text) }
}

/// A method, signal or property name, e.g. `OpenURL`.
public struct MemberName: DBusName {
    public let rawValue: String
    public init(trusted rawValue: String) { self.rawValue = rawValue }
    public static let kind = "member name"
    public static func problem(with text: String) -> String? { text.withUTF8Bytes(NameRules.memberName) }
}

/// A bus name: unique (`:1.42`) or well-known (`org.openurld.Dispatcher1`).
public struct BusName: DBusName {
    public let rawValue: String
    public init(trusted rawValue: String) { self.rawValue = rawValue }
    public static let kind = "bus name"
    public static func problem(with text: String) -> String? { text.withUTF8Bytes(NameRules.busName) }

    /// Whether this is a connection's unique name (starts with `:`).
    public var isUnique: Bool { rawValue.hasPrefix(":") }

    /// The message bus itself.
    public static let bus = BusName(trusted: "org.freedesktop.DBus")
}

extension InterfaceName {
    /// `Ping` and `GetMachineId`, which every object answers.
    public static let peer: InterfaceName = "org.freedesktop.DBus.Peer"
    /// `Introspect`, which every object answers.
    public static let introspectable: InterfaceName = "org.freedesktop.DBus.Introspectable"
    /// `Get`, `GetAll` and `Set` of an object's properties.
    public static let properties: InterfaceName = "org.freedesktop.DBus.Properties"
}

extension MemberName {
    /// The method of `InterfaceName.introspectable`.
    public static let introspect: MemberName = "Introspect"
}

/// An object path, e.g. `/org/openurld/Dispatcher1`.
public struct ObjectPath: DBusName {
    public let rawValue: String
    public init(trusted rawValue: String) { self.rawValue = rawValue }
    public static let kind = "object path"
    public static func problem(with text: String) -> String? { text.withUTF8Bytes(NameRules.objectPath) }

    /// The root path `/`.
    public static let root = ObjectPath(trusted: "/")

    /// The path's elements, e.g. `["org", "openurld"]` for `/org/openurld`.
    public var elements: [Substring] { rawValue.split(separator: "/") }
}

let maximumNameLength = 255

func describe(byte: UInt8) -> String {
    if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    let hex = String(byte, radix: 16, uppercase: true)
    return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
}

/// Quotes text for an error message, cutting very long input so that the
/// message stays readable (the input may be hostile and megabytes long).
func quoted(_ text: String, limit: Int = 80) -> String {
    let escaped = text.unicodeScalars.prefix(limit).map { scalar -> String in
        scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
    }.joined()
    return "\"" + escaped + (text.unicodeScalars.count > limit ? "…" : "") + "\""
}
