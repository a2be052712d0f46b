import SafeText

/// A D-Bus value of any supported type.
///
/// Containers carry their element types so that empty arrays and dictionaries
/// still have a signature. Unix file descriptors (`h`) are not supported: this
/// project never passes them, and refusing them keeps descriptors from leaking
/// into the daemon.
///
/// Only a variant holds its value in a box of its own: the other cases are
/// stored inline (containers through their arrays' storage), so that making
/// a string or a boolean allocates nothing.
public enum Value: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    indirect case variant(Value)
    case array(DBusType, [Value])
    case dictionary(key: DBusType, value: DBusType, [DictionaryEntry])
    case structure([Value])

    /// The type of this value.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .variant: .variant
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        }
    }

    /// Whether this value has `type`: `self.type == type`, without building
    /// the value's type (a structure's is an array, a container's a box),
    /// as every check of arguments and replies against a signature asks.
    public func hasType(_ type: DBusType) -> Bool {
        switch (self, type) {
        case (.byte, .byte), (.boolean, .boolean), (.int16, .int16), (.uint16, .uint16), (.int32, .int32),
            (.uint32, .uint32), (.int64, .int64), (.uint64, .uint64), (.double, .double), (.string, .string),
            (.objectPath, .objectPath), (.signature, .signature), (.variant, .variant):
            true
        case (.array(let element, _), .array(let expected)): element == expected
        case (.dictionary(let key, let value, _), .dictionary(let expectedKey, let expectedValue)):
            key == expectedKey && value == expectedValue
        case (.structure(let fields), .structure(let expected)):
            fields.elementsEqual(expected) { $0.hasType($1) }
        default: false
        }
    }
}

/// One key–value pair of a D-Bus dictionary, kept in wire order.
public struct DictionaryEntry: Hashable, Sendable {
    /// The key.
    public var key: Value
    /// The value.
    public var value: Value
    /// A pair of `key` and `value`.
    public init(key: Value, value: Value) {
        self.key = key
        self.value = value
    }
}

extension Value {
    /// The D-Bus limit on container nesting within one message.
    static let maximumNesting = 64

    /// Why this value cannot be sent, or `nil` when it can.
    ///
    /// Checked when a message is made, so that a value the wire cannot carry
    /// (a string with a NUL, an element of the wrong type) is the maker's
    /// error, never a half-written message.
    func problem(depth: Int = 0) -> String? {
        if depth > Self.maximumNesting { return "values are nested more than \(Self.maximumNesting) deep" }
        switch self {
        case .string(let text):
            if text.containsByte(0) { return "a string contains a NUL character" }
        case .variant(let inner):
            return inner.problem(depth: depth + 1)
        case .array(let element, let items):
            if element == .unixFD { return "unix file descriptors are not supported" }
            for item in items {
                if !item.hasType(element) { return "an array of \(element) holds a \(item.type)" }
                if let problem = item.problem(depth: depth + 1) { return problem }
            }
        case .dictionary(let key, let value, let entries):
            guard key.isBasic else { return "a dictionary key must be a basic type, not \(key)" }
            for entry in entries {
                if !entry.key.hasType(key) { return "a dictionary with \(key) keys holds a \(entry.key.type) key" }
                if !entry.value.hasType(value) {
                    return "a dictionary with \(value) values holds a \(entry.value.type) value"
                }
                if let problem = entry.key.problem(depth: depth + 1) ?? entry.value.problem(depth: depth + 1) {
                    return problem
                }
            }
        case .structure(let fields):
            if fields.isEmpty { return "a struct must have at least one field" }
            for field in fields {
                if let problem = field.problem(depth: depth + 1) { return problem }
            }
        default:
            break
        }
        return nil
    }
}

// MARK: - Reading values without a switch at every call site

extension Value {
    /// The string, when this is one.
    public var string: String? { if case .string(let v) = self { v } else { nil } }
    /// The boolean, when this is one.
    public var boolean: Bool? { if case .boolean(let v) = self { v } else { nil } }
    /// The `int32`, when this is one.
    public var int32: Int32? { if case .int32(let v) = self { v } else { nil } }
    /// The `uint32`, when this is one.
    public var uint32: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    /// The object path, when this is one.
    public var objectPath: ObjectPath? { if case .objectPath(let v) = self { v } else { nil } }
    /// The value inside a variant, or `nil` when this is not a variant.
    public var unwrapped: Value? { if case .variant(let v) = self { v } else { nil } }
}
