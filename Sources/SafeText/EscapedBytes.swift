/// Text that keeps bytes which are not UTF-8: how a path, an argument or a
/// file's contents, which are bytes, travel as a `String` and come back as
/// the same bytes.
///
/// Each byte that is not part of well-formed UTF-8 (always 0x80 or more)
/// becomes the scalar U+10FF00 + byte, U+10FF80…U+10FFFF, at the end of the
/// last private-use plane, which no file name or configuration file uses; a
/// well-formed character in that range is escaped byte by byte too, so
/// `encode(decode(b)) == b` for every byte string `b` (as Python's
/// `surrogateescape` does with lone surrogates, which a Swift `String`
/// cannot hold). No escape stands for a byte under 0x80, so none can
/// become a NUL that cuts a path or an argument short.
///
///     let name = EscapedBytes.decode([0x63, 0x61, 0x66, 0xE9])  // "caf" + U+10FFE9
///     EscapedBytes.encode(name)                                 // [0x63, 0x61, 0x66, 0xE9]
///     displayable(name)                                         // "caf\xE9"
public enum EscapedBytes {
    /// Byte `b` (0x80 or more) is the scalar `base + b`.
    public static let base: UInt32 = 0x10FF00
    /// The first escape scalar, U+10FF80 (byte 0x80).
    public static let firstEscape: UInt32 = base + 0x80

    /// The text for `bytes`, with each byte that is not well-formed UTF-8
    /// (or is part of a character in U+10FF80…U+10FFFF) as its escape scalar.
    public static func decode(_ bytes: some Collection<UInt8>) -> String {
        // Nearly every path and argument is ASCII or valid UTF-8 outside
        // the escape block: one validation, no scalar-by-scalar rebuild.
        // (An escape scalar is F4 8F BE or BF, then a byte, in UTF-8.)
        if let text = String(validating: bytes, as: UTF8.self), !text.utf8.contains(0xF4) || !hasEscapes(text) {
            return text
        }
        let bytes = Array(bytes)
        var result = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if isEscape(scalar) {
                    for byte in bytes[offset..<offset + encoded.count] { result.append(escape(byte)) }
                } else {
                    result.append(scalar)
                }
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<offset + length] { result.append(escape(byte)) }
                offset += length
            case .emptyInput:
                return String(result)
            }
        }
    }

    /// The bytes `text` stands for: its UTF-8, with each escape scalar as its byte.
    public static func encode(_ text: String) -> [UInt8] {
        guard mayHaveEscapes(text), hasEscapes(text) else { return Array(text.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isEscape(scalar) {
                bytes.append(UInt8(truncatingIfNeeded: scalar.value - base))
            } else {
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        return bytes
    }

    /// Calls `body` with the NUL-terminated bytes `text` stands for, as a
    /// path or an argument is handed to the kernel.
    public static func withCString<R>(_ text: String, _ body: (UnsafePointer<CChar>) -> R) -> R {
        // Nearly every path has no escape: its own UTF-8, with no copy.
        guard mayHaveEscapes(text), hasEscapes(text) else { return text.withCString(body) }
        var bytes = encode(text).map { CChar(bitPattern: $0) }
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// The text for a NUL-terminated C string (an `argv` word, a name the kernel returned).
    public static func decode(cString: UnsafePointer<CChar>) -> String {
        let count = strlen(cString)
        return cString.withMemoryRebound(to: UInt8.self, capacity: count) {
            decode(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    /// Whether `scalar` is the escape of a byte.
    public static func isEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= firstEscape
    }

    /// Whether `text` may hold an escape: every escape's UTF-8 starts with
    /// 0xF4 (every path handed to the kernel is asked).
    private static func mayHaveEscapes(_ text: String) -> Bool { text.containsByte(0xF4) }

    /// Whether `text` has an escape scalar, that is, stands for bytes that
    /// are not its UTF-8.
    public static func hasEscapes(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isEscape)
    }

    static func escape(_ byte: UInt8) -> Unicode.Scalar {
        Unicode.Scalar(base + UInt32(byte))!
    }

    private static func strlen(_ s: UnsafePointer<CChar>) -> Int {
        var n = 0
        while s[n] != 0 { n += 1 }
        return n
    }
}
