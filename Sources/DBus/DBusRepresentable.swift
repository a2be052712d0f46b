/// A Swift type with a fixed D-Bus type, convertible to and from `Value`.
///
/// Conformances let call sites read typed arguments directly:
/// `let (url, options) = try call.decode(String.self, [String: Variant].self)`.
public protocol DBusRepresentable: Sendable {
    /// The D-Bus type every value of this Swift type has.
    static var dbusType: DBusType { get }
    /// This value as a D-Bus value.
    var dbusValue: Value { get }
    /// Converts a D-Bus value, or returns `nil` when it has another type.
    init?(dbusValue: Value)
}

/// A D-Bus variant (`v`): a value that carries its own type.
public struct Variant: DBusRepresentable, Hashable {
    /// The value inside.
    public var value: Value
    /// A variant holding `value`.
    public init(_ value: Value) { self.value = value }
    /// A variant holding `value`'s D-Bus form.
    public init<T: DBusRepresentable>(_ value: T) { self.value = value.dbusValue }
    public static var dbusType: DBusType { .variant }
    public var dbusValue: Value { .variant(value) }
    public init?(dbusValue: Value) {
        guard case .variant(let inner) = dbusValue else { return nil }
        value = inner
    }
    /// The contents as `T`, or `nil` when they have another type.
    public func get<T: DBusRepresentable>(_: T.Type = T.self) -> T? { T(dbusValue: value) }
}

extension String: DBusRepresentable {
    public static var dbusType: DBusType { .string }
    public var dbusValue: Value { .string(self) }
    public init?(dbusValue: Value) { guard case .string(let v) = dbusValue else { return nil }; self = v }
}

extension Bool: DBusRepresentable {
    public static var dbusType: DBusType { .boolean }
    public var dbusValue: Value { .boolean(self) }
    public init?(dbusValue: Value) { guard case .boolean(let v) = dbusValue else { return nil }; self = v }
}

extension UInt8: DBusRepresentable {
    public static var dbusType: DBusType { .byte }
    public var dbusValue: Value { .byte(self) }
    public init?(dbusValue: Value) { guard case .byte(let v) = dbusValue else { return nil }; self = v }
}

extension Int16: DBusRepresentable {
    public static var dbusType: DBusType { .int16 }
    public var dbusValue: Value { .int16(self) }
    public init?(dbusValue: Value) { guard case .int16(let v) = dbusValue else { return nil }; self = v }
}

extension UInt16: DBusRepresentable {
    public static var dbusType: DBusType { .uint16 }
    public var dbusValue: Value { .uint16(self) }
    public init?(dbusValue: Value) { guard case .uint16(let v) = dbusValue else { return nil }; self = v }
}

extension Int32: DBusRepresentable {
    public static var dbusType: DBusType { .int32 }
    public var dbusValue: Value { .int32(self) }
    public init?(dbusValue: Value) { guard case .int32(let v) = dbusValue else { return nil }; self = v }
}

extension UInt32: DBusRepresentable {
    public static var dbusType: DBusType { .uint32 }
    public var dbusValue: Value { .uint32(self) }
    public init?(dbusValue: Value) { guard case .uint32(let v) = dbusValue else { return nil }; self = v }
}

extension Int64: DBusRepresentable {
    public static var dbusType: DBusType { .int64 }
    public var dbusValue: Value { .int64(self) }
    public init?(dbusValue: Value) { guard case .int64(let v) = dbusValue else { return nil }; self = v }
}

extension UInt64: DBusRepresentable {
    public static var dbusType: DBusType { .uint64 }
    public var dbusValue: Value { .uint64(self) }
    public init?(dbusValue: Value) { guard case .uint64(let v) = dbusValue else { return nil }; self = v }
}

extension Double: DBusRepresentable {
    public static var dbusType: DBusType { .double }
    public var dbusValue: Value { .double(self) }
    public init?(dbusValue: Value) { guard case .double(let v) = dbusValue else { return nil }; self = v }
}

extension ObjectPath: DBusRepresentable {
    public static var dbusType: DBusType { .objectPath }
    public var dbusValue: Value { .objectPath(self) }
    public init?(dbusValue: Value) { guard case .objectPath(let v) = dbusValue else { return nil }; self = v }
}

extension Signature: DBusRepresentable {
    public static var dbusType: DBusType { .signature }
    public var dbusValue: Value { .signature(self) }
    public init?(dbusValue: Value) { guard case .signature(let v) = dbusValue else { return nil }; self = v }
}

extension Array: DBusRepresentable where Element: DBusRepresentable {
    public static var dbusType: DBusType { .array(Element.dbusType) }
    public var dbusValue: Value { .array(Element.dbusType, map(\.dbusValue)) }
    public init?(dbusValue: Value) {
        guard case .array(let element, let items) = dbusValue, element == Element.dbusType else { return nil }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard let converted = Element(dbusValue: item) else { return nil }
            result.append(converted)
        }
        self = result
    }
}

/// Dictionaries are sent with their keys sorted, so that a message built from
/// the same dictionary is the same bytes every time.
extension Dictionary: DBusRepresentable where Key: DBusRepresentable & Comparable, Value: DBusRepresentable {
    public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }
    public var dbusValue: DBus.Value {
        .dictionary(
            key: Key.dbusType, value: Value.dbusType,
            sorted { $0.key < $1.key }.map { DictionaryEntry(key: $0.key.dbusValue, value: $0.value.dbusValue) })
    }
    public init?(dbusValue: DBus.Value) {
        guard case .dictionary(let key, let value, let entries) = dbusValue,
            key == Key.dbusType, value == Value.dbusType
        else { return nil }
        var result: [Key: Value] = [:]
        for entry in entries {
            // A repeated key: the last one wins, as in GLib's a{sv} lookups.
            guard let k = Key(dbusValue: entry.key), let v = Value(dbusValue: entry.value) else { return nil }
            result[k] = v
        }
        self = result
    }
}
