/// One complete D-Bus type, e.g. `s`, `a{sv}` or `(ias)`.
public indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case variant
    case array(DBusType)
    /// `a{KV}`: an array of dict entries. The key must be a basic type.
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])

    /// The type's signature code, e.g. `a{sv}`.
    public var description: String {
        switch self {
        case .array(let element): return "a" + element.description
        case .dictionary(let key, let value): return "a{" + key.description + value.description + "}"
        case .structure(let fields): return "(" + fields.map(\.description).joined() + ")"
        default:
            // A one-byte small string: no Character (grapheme) machinery, no allocation.
            let code = basicCode!
            return String(unsafeUninitializedCapacity: 1) { buffer in
                buffer[0] = code
                return 1
            }
        }
    }

    /// The length of `description`, counted without making it.
    var signatureLength: Int {
        switch self {
        case .array(let element): 1 + element.signatureLength
        case .dictionary(let key, let value): 3 + key.signatureLength + value.signatureLength
        case .structure(let fields): 2 + fields.reduce(0) { $0 + $1.signatureLength }
        default: 1
        }
    }

    /// Whether this type may be a dictionary key (any basic type; not variant or container).
    public var isBasic: Bool { basicCode != nil && self != .variant }

    /// The one-byte code of non-container types, including `v`.
    var basicCode: UInt8? {
        switch self {
        case .byte: return UInt8(ascii: "y")
        case .boolean: return UInt8(ascii: "b")
        case .int16: return UInt8(ascii: "n")
        case .uint16: return UInt8(ascii: "q")
        case .int32: return UInt8(ascii: "i")
        case .uint32: return UInt8(ascii: "u")
        case .int64: return UInt8(ascii: "x")
        case .uint64: return UInt8(ascii: "t")
        case .double: return UInt8(ascii: "d")
        case .string: return UInt8(ascii: "s")
        case .objectPath: return UInt8(ascii: "o")
        case .signature: return UInt8(ascii: "g")
        case .unixFD: return UInt8(ascii: "h")
        case .variant: return UInt8(ascii: "v")
        case .array, .dictionary, .structure: return nil
        }
    }

    /// The types a single signature character stands for. An array, not a
    /// dictionary by code: a global dictionary is made at first use by a
    /// run-time check of its key's `Hashable` conformance, which scans every
    /// conformance in the binary (a tenth of a millisecond of each `openurl`).
    static let basicTypes: [DBusType] = [
        .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double,
        .string, .objectPath, .signature, .unixFD, .variant,
    ]
}

/// A validated D-Bus signature: zero or more complete types, e.g. `sa{sv}`.
public struct Signature: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The complete types, in order.
    public let types: [DBusType]
    /// The signature text.
    public let rawValue: String

    /// Parses and validates a signature.
    /// - Throws: `InvalidArgs` saying what is wrong and where.
    public init(_ text: String) throws(DBusError) {
        types = try SignatureParser.parse(text)
        rawValue = text
    }

    /// Builds the signature of a sequence of types.
    public init(_ types: [DBusType]) {
        self.types = types
        self.rawValue = types.map(\.description).joined()
    }

    /// A literal in source code is a programmer's promise; breaking it is a bug.
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("invalid signature literal: \(error)") }
    }

    /// The empty signature.
    public static let empty = Signature([])

    public var description: String { rawValue }

    /// Whether the two are the same types. Told by their text, which is
    /// one to one with the types: comparing the types walked their arrays
    /// and the boxes of nested types, for the signature of every call
    /// checked against its method's.
    public static func == (lhs: Signature, rhs: Signature) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

private struct SignatureParser {
    static let maximumLength = 255
    static let maximumDepth = 32

    let bytes: [UInt8]
    var position = 0
    var arrayDepth = 0
    var structDepth = 0

    static func parse(_ text: String) throws(DBusError) -> [DBusType] {
        if text.utf8.count > maximumLength {
            throw .invalidArgs("signature is longer than \(maximumLength) bytes")
        }
        var parser = SignatureParser(bytes: Array(text.utf8))
        var types: [DBusType] = []
        while parser.position < parser.bytes.count {
            types.append(try parser.completeType())
        }
        return types
    }

    mutating func fail(_ reason: String) -> DBusError {
        .invalidArgs("invalid signature \(quoted(String(decoding: bytes, as: UTF8.self))): \(reason) at offset \(position)")
    }

    mutating func completeType() throws(DBusError) -> DBusType {
        guard position < bytes.count else { throw fail("a type is missing") }
        let code = bytes[position]
        position += 1
        switch code {
        case UInt8(ascii: "a"):
            arrayDepth += 1
            defer { arrayDepth -= 1 }
            if arrayDepth > Self.maximumDepth { throw fail("arrays nested more than 32 deep") }
            if position < bytes.count && bytes[position] == UInt8(ascii: "{") {
                position += 1
                let key = try completeType()
                guard key.isBasic else { throw fail("a dictionary key must be a basic type") }
                let value = try completeType()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "}") else {
                    throw fail("a dictionary entry must hold exactly two types and end with '}'")
                }
                position += 1
                return .dictionary(key: key, value: value)
            }
            return .array(try completeType())
        case UInt8(ascii: "("):
            structDepth += 1
            defer { structDepth -= 1 }
            if structDepth > Self.maximumDepth { throw fail("structs nested more than 32 deep") }
            var fields: [DBusType] = []
            while position < bytes.count && bytes[position] != UInt8(ascii: ")") {
                fields.append(try completeType())
            }
            guard position < bytes.count else { throw fail("a struct is not closed") }
            guard !fields.isEmpty else { throw fail("a struct is empty") }
            position += 1
            return .structure(fields)
        default:
            if let type = DBusType.basicTypes.first(where: { $0.basicCode == code }) { return type }
            position -= 1
            throw fail("unexpected \(describe(byte: code))")
        }
    }
}
