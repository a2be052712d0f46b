/// Writes values in the wire format, little-endian, into one growing
/// buffer whose offset 0 is 8-aligned (a message's start, or its body's).
///
/// It writes what it is given: `WireFormat.encode` checks the values first
/// (`Value.problem`), as the body's types and the header's names require.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }

    /// Zero bytes up to the next multiple of `alignment` (a power of two).
    mutating func pad(to alignment: Int) {
        let remainder = bytes.count & (alignment - 1)
        guard remainder != 0 else { return }
        bytes.append(contentsOf: repeatElement(0, count: alignment - remainder))
    }

    mutating func appendByte(_ byte: UInt8) { bytes.append(byte) }

    /// Writes `value` over the four bytes at `offset` (a length known only later).
    mutating func patch(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { encoded in
            for index in 0..<4 { bytes[offset + index] = encoded[index] }
        }
    }

    /// An integer at its own alignment.
    mutating func append<T: FixedWidthInteger>(_ value: T) {
        pad(to: MemoryLayout<T>.size)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A string or an object path: its length, its bytes and a NUL.
    mutating func appendText(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            append(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        bytes.append(0)
    }

    /// A signature: a one-byte length, its bytes and a NUL.
    mutating func appendSignatureText(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.append(UInt8(truncatingIfNeeded: utf8.count))
            bytes.append(contentsOf: utf8)
        }
        bytes.append(0)
    }

    /// The signature of `values`' types, without making its text.
    /// - Throws: `InvalidArgs` past 255 bytes, the longest a signature may be.
    mutating func appendSignature(of values: [Value]) throws(DBusError) {
        let lengthAt = bytes.count
        bytes.append(0)
        for value in values { appendCodes(of: value) }
        let length = bytes.count - lengthAt - 1
        guard length <= 255 else { throw .invalidArgs("cannot send values whose signature is longer than 255 bytes") }
        bytes[lengthAt] = UInt8(length)
        bytes.append(0)
    }

    /// A value's type codes, read off the value (a structure's type would be an array made).
    private mutating func appendCodes(of value: Value) {
        switch value {
        case .array(let element, _): bytes.append(UInt8(ascii: "a")); appendCodes(of: element)
        case .dictionary(let key, let value, _): appendCodes(of: .dictionary(key: key, value: value))
        case .structure(let fields):
            bytes.append(UInt8(ascii: "("))
            for field in fields { appendCodes(of: field) }
            bytes.append(UInt8(ascii: ")"))
        case .variant: bytes.append(UInt8(ascii: "v"))
        default: appendCodes(of: value.type)
        }
    }

    private mutating func appendCodes(of type: DBusType) {
        switch type {
        case .array(let element):
            bytes.append(UInt8(ascii: "a"))
            appendCodes(of: element)
        case .dictionary(let key, let value):
            bytes.append(UInt8(ascii: "a"))
            bytes.append(UInt8(ascii: "{"))
            appendCodes(of: key)
            appendCodes(of: value)
            bytes.append(UInt8(ascii: "}"))
        case .structure(let fields):
            bytes.append(UInt8(ascii: "("))
            for field in fields { appendCodes(of: field) }
            bytes.append(UInt8(ascii: ")"))
        default:
            bytes.append(type.basicCode!)
        }
    }

    /// The signature of a single basic type, without making its text.
    mutating func appendSignatureCode(_ code: UInt8) {
        bytes.append(1)
        bytes.append(code)
        bytes.append(0)
    }

    /// An array: its length, the padding to its first element (there even
    /// when it is empty), and what `fill` writes, whose length is then
    /// written in front of it.
    /// - Throws: `InvalidArgs` when the contents pass 64 MiB.
    mutating func appendArray(alignment: Int, _ fill: (inout WireWriter) throws(DBusError) -> Void) throws(DBusError) {
        append(UInt32(0))
        let lengthAt = bytes.count - 4
        pad(to: alignment)
        let start = bytes.count
        try fill(&self)
        let length = bytes.count - start
        guard length <= WireFormat.maximumArrayLength else { throw .invalidArgs("cannot send an array longer than 64 MiB") }
        patch(UInt32(length), at: lengthAt)
    }

    /// One value, at its type's alignment.
    mutating func append(_ value: Value) throws(DBusError) {
        switch value {
        case .byte(let v): bytes.append(v)
        case .boolean(let v): append(UInt32(v ? 1 : 0))
        case .int16(let v): append(v)
        case .uint16(let v): append(v)
        case .int32(let v): append(v)
        case .uint32(let v): append(v)
        case .int64(let v): append(v)
        case .uint64(let v): append(v)
        case .double(let v): append(v.bitPattern)
        case .string(let text): appendText(text)
        case .objectPath(let path): appendText(path.rawValue)
        case .signature(let signature): appendSignatureText(signature.rawValue)
        case .variant(let inner):
            let type = inner.type
            if let code = type.basicCode { appendSignatureCode(code) } else { appendSignatureText(type.description) }
            try append(inner)
        case .array(let element, let items):
            try appendArray(alignment: element.alignment) { writer throws(DBusError) in
                for item in items { try writer.append(item) }
            }
        case .dictionary(_, _, let entries):
            try appendArray(alignment: 8) { writer throws(DBusError) in
                for entry in entries {
                    writer.pad(to: 8)
                    try writer.append(entry.key)
                    try writer.append(entry.value)
                }
            }
        case .structure(let fields):
            pad(to: 8)
            for field in fields { try append(field) }
        }
    }
}
