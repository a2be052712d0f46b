/// Just enough JSON to read browsers' own state files (Chromium's
/// `Local State`): objects, arrays, strings with escapes, numbers, literals.
/// Pure and bounded: nesting deeper than 64 or malformed text gives `nil`.
public indirect enum JSONValue: Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Reads `text`; `nil` when it is malformed or nests deeper than 64.
    public init?(parsing text: String) {
        var reader = Reader(bytes: Array(text.utf8))
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { return nil }
        self = value
    }

    /// The member `key` of an object; `nil` for a missing key or another kind of value.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The string, when this is one.
    public var string: String? { if case .string(let text) = self { text } else { nil } }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth < 64 else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                var members: [String: JSONValue] = [:]
                let closed = elements(until: UInt8(ascii: "}")) { reader in
                    reader.skipSpace()
                    guard let key = reader.string() else { return false }
                    reader.skipSpace()
                    guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: ":") else { return false }
                    reader.index += 1
                    guard let member = reader.value(depth: depth + 1) else { return false }
                    members[key] = member
                    return true
                }
                return closed ? .object(members) : nil
            case UInt8(ascii: "["):
                var items: [JSONValue] = []
                let closed = elements(until: UInt8(ascii: "]")) { reader in
                    guard let item = reader.value(depth: depth + 1) else { return false }
                    items.append(item)
                    return true
                }
                return closed ? .array(items) : nil
            case UInt8(ascii: "\""):
                return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default:
                let start = index
                while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
                return Double(String(decoding: bytes[start..<index], as: UTF8.self)).map(JSONValue.number)
            }
        }

        /// Reads the elements of an object or array that starts at `index`,
        /// separated by commas, through `closing`; `false` on malformed text.
        mutating func elements(until closing: UInt8, _ element: (inout Reader) -> Bool) -> Bool {
            index += 1
            skipSpace()
            if index < bytes.count, bytes[index] == closing {
                index += 1
                return true
            }
            while true {
                guard element(&self) else { return false }
                skipSpace()
                guard index < bytes.count else { return false }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == closing else { return false }
                index += 1
                return true
            }
        }

        mutating func literal(_ word: String, _ value: JSONValue) -> JSONValue? {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else { return nil }
            index += expected.count
            return value
        }

        /// A string at `index` (which must be `"`), escapes decoded.
        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll(keepingCapacity: true)
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "u"):
                        guard var code = hex4() else { return nil }
                        // A surrogate pair: high then \\u low.
                        if (0xD800...0xDBFF).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                           bytes[index + 1] == UInt8(ascii: "u") {
                            index += 2
                            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                    default: scalars.append(Unicode.Scalar(escape))
                    }
                default:
                    run.append(byte)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard bytes.count - index >= 4, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
                return nil
            }
            index += 4
            return value
        }
    }
}
