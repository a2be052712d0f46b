import Glibc

/// Writes values in the wire format, little-endian, into one growing
/// buffer whose offset 0 is 8-aligned (a message's start, or its body's).
///
/// It writes what it is given: `WireFormat.encode` checks the values first
/// (`Value.problem`), as the body's types and the header's names require.
struct WireWriter: ~Copyable {
    /// The bytes written, in memory of the writer's own: an array appended
    /// to checked its uniqueness and capacity on every byte, most of the
    /// cost of writing a message.
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes are written.
    private(set) var count = 0

    /// A writer with room for `capacity` bytes before it grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// The bytes written.
    consuming func finish() -> [UInt8] {
        Array(UnsafeBufferPointer(start: storage, count: count))
    }

    /// `body` given the bytes written, where they are.
    borrowing func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Room for `more` bytes past `count`. Inlined, as are the appends
    /// below: a message is written a few bytes at a time.
    @inline(__always)
    private mutating func makeRoom(for more: Int) {
        if count + more > capacity { grow(toHold: count + more) }
    }

    @inline(never)
    private mutating func grow(toHold needed: Int) {
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.initialize(from: storage, count: count)
        storage.deallocate()
        (storage, capacity) = (moved, grown)
    }

    /// Zero bytes up to the next multiple of `alignment` (a power of two).
    @inline(__always)
    mutating func pad(to alignment: Int) {
        let remainder = count & (alignment - 1)
        guard remainder != 0 else { return }
        let padding = alignment - remainder
        makeRoom(for: padding)
        (storage + count).initialize(repeating: 0, count: padding)
        count += padding
    }

    @inline(__always)
    mutating func appendByte(_ byte: UInt8) {
        makeRoom(for: 1)
        storage[count] = byte
        count += 1
    }

    /// `bytes`, as they are.
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        makeRoom(for: bytes.count)
        if let base = bytes.baseAddress { (storage + count).initialize(from: base, count: bytes.count) }
        count += bytes.count
    }

    /// Writes `value` over the four bytes at `offset` (a length known only later).
    mutating func patch(_ value: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= count, "patching bytes not written")
        for index in 0..<4 { storage[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    /// An integer at its own alignment, least significant byte first whatever the host's order.
    @inline(__always)
    mutating func append<T: FixedWidthInteger>(_ value: T) {
        pad(to: MemoryLayout<T>.size)
        makeRoom(for: MemoryLayout<T>.size)
        var remaining = value
        for index in 0..<MemoryLayout<T>.size {
            storage[count + index] = UInt8(truncatingIfNeeded: remaining)
            remaining >>= 8
        }
        count += MemoryLayout<T>.size
    }

    /// A string or an object path: its length, its bytes and a NUL.
    mutating func appendText(_ text: String) {
        // Read in place: `withUTF8` needs a mutable copy of the string, a
        // retain and a release for each of a message's dozen texts.
        withUTF8(of: text) { writer, utf8 in writer.appendCounted(utf8) }
    }

    /// `appendText`, unless `text` holds a NUL (which no D-Bus string may):
    /// then nothing is written and the answer is `false`. The check and the
    /// copy read the same bytes, reached once.
    mutating func appendTextWithoutNUL(_ text: String) -> Bool {
        withUTF8(of: text) { writer, utf8 in
            if let base = utf8.baseAddress, memchr(base, 0, utf8.count) != nil { return false }
            writer.appendCounted(utf8)
            return true
        }
    }

    /// `body` with `text`'s UTF-8 bytes, in place when they are contiguous
    /// (always, for a native string), else from a copy.
    private mutating func withUTF8<Result>(of text: String, _ body: (inout WireWriter, UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable({ body(&self, $0) }) { return result }
        var text = text
        return text.withUTF8 { body(&self, $0) }
    }

    /// A length, the bytes and a NUL.
    private mutating func appendCounted(_ utf8: UnsafeBufferPointer<UInt8>) {
        append(UInt32(utf8.count))
        appendBytes(utf8)
        appendByte(0)
    }

    /// A signature: a one-byte length, its bytes and a NUL.
    mutating func appendSignatureText(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            appendByte(UInt8(truncatingIfNeeded: utf8.count))
            appendBytes(utf8)
        }
        appendByte(0)
    }

    /// The signature of `values`' types, without making its text.
    /// - Throws: `InvalidArgs` past 255 bytes, the longest a signature may be.
    mutating func appendSignature(of values: [Value]) throws(DBusError) {
        let lengthAt = count
        appendByte(0)
        for value in values { appendCodes(of: value) }
        let length = count - lengthAt - 1
        guard length <= 255 else { throw .invalidArgs("cannot send values whose signature is longer than 255 bytes") }
        storage[lengthAt] = UInt8(length)
        appendByte(0)
    }

    /// A value's type codes, read off the value (a structure's type would be an array made).
    private mutating func appendCodes(of value: Value) {
        switch value {
        case .array(let element, _): appendByte(UInt8(ascii: "a")); appendCodes(of: element)
        case .dictionary(let key, let value, _): appendCodes(of: .dictionary(key: key, value: value))
        case .structure(let fields):
            appendByte(UInt8(ascii: "("))
            for field in fields { appendCodes(of: field) }
            appendByte(UInt8(ascii: ")"))
        case .variant: appendByte(UInt8(ascii: "v"))
        default: appendCodes(of: value.type)
        }
    }

    private mutating func appendCodes(of type: DBusType) {
        switch type {
        case .array(let element):
            appendByte(UInt8(ascii: "a"))
            appendCodes(of: element)
        case .dictionary(let key, let value):
            appendByte(UInt8(ascii: "a"))
            appendByte(UInt8(ascii: "{"))
            appendCodes(of: key)
            appendCodes(of: value)
            appendByte(UInt8(ascii: "}"))
        case .structure(let fields):
            appendByte(UInt8(ascii: "("))
            for field in fields { appendCodes(of: field) }
            appendByte(UInt8(ascii: ")"))
        default:
            appendByte(type.basicCode!)
        }
    }

    /// The signature of a single basic type, without making its text.
    mutating func appendSignatureCode(_ code: UInt8) {
        appendByte(1)
        appendByte(code)
        appendByte(0)
    }

    /// Where an array's length goes and where its contents start (`beginArray`).
    struct ArrayStart {
        fileprivate let lengthAt: Int
        fileprivate let start: Int
    }

    /// An array's length (written by `endArray`) and the padding to its
    /// first element, there even when it is empty; its contents follow.
    mutating func beginArray(alignment: Int) -> ArrayStart {
        append(UInt32(0))
        let lengthAt = count - 4
        pad(to: alignment)
        return ArrayStart(lengthAt: lengthAt, start: count)
    }

    /// Writes the length of the array `array` began, now that its contents are written.
    /// - Throws: `InvalidArgs` when the contents pass 64 MiB.
    mutating func endArray(_ array: ArrayStart) throws(DBusError) {
        let length = count - array.start
        guard length <= WireFormat.maximumArrayLength else { throw .invalidArgs("cannot send an array longer than 64 MiB") }
        patch(UInt32(length), at: array.lengthAt)
    }

    /// One value, at its type's alignment.
    mutating func append(_ value: Value) throws(DBusError) {
        switch value {
        case .byte(let v): appendByte(v)
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
            let array = beginArray(alignment: element.alignment)
            for item in items { try append(item) }
            try endArray(array)
        case .dictionary(_, _, let entries):
            let array = beginArray(alignment: 8)
            for entry in entries {
                pad(to: 8)
                try append(entry.key)
                try append(entry.value)
            }
            try endArray(array)
        case .structure(let fields):
            pad(to: 8)
            for field in fields { try append(field) }
        }
    }
}
