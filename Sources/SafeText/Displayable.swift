/// Text from a peer (a handler's name, a URL's host, a rule's value) made safe
/// to put in a log line or on a terminal.
///
/// Control characters (C0, DEL, C1), bidirectional controls, line and
/// paragraph separators and other invisible format characters are written as
/// `\u{…}` escapes, so that no peer can move the cursor, retitle a terminal,
/// reorder what a person reads or forge a second log line. A byte that is
/// not UTF-8, kept by `EscapedBytes` (a file name from an old disk), is
/// written `\xE9`, the byte it is.
///
///     displayable("evil\u{1B}[2J")   // "evil\u{1B}[2J" with the ESC spelled out
public func displayable(_ text: some StringProtocol) -> String {
    displayable(String(text))
}

/// `displayable` for a `String`, the common case, without generic dispatch.
public func displayable(_ text: String) -> String {
    // Nearly every log line needs no escape, and one pass over its bytes
    // settles that (looking at Unicode properties scalar by scalar was most
    // of a forwarded call's CPU). Only text that needs one is rebuilt.
    guard needsAnyEscape(text) else { return text }
    var output = ""
    output.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
        if EscapedBytes.isEscape(scalar) {
            let byte = String(scalar.value - EscapedBytes.base, radix: 16, uppercase: true)
            output += "\\x" + (byte.count < 2 ? "0" : "") + byte
        } else if needsEscape(scalar) {
            output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
            output.unicodeScalars.append(scalar)
        }
    }
    return output
}

/// Whether `displayable` gives `utf8`, read as text, back unchanged: no
/// scalar needs an escape. The daemon builds its line for every URL as
/// bytes and writes them as they are when this holds, making no string.
/// - Parameter utf8: well-formed UTF-8, such as bytes copied from strings.
public func isDisplayableAsIs(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
    !needsAnyEscape(utf8)
}

/// Whether any scalar of `text` needs an escape.
private func needsAnyEscape(_ text: String) -> Bool {
    text.utf8.withContiguousStorageIfAvailable(needsAnyEscape) ?? text.unicodeScalars.contains(where: needsEscape)
}

/// Whether any scalar of well-formed UTF-8 `bytes` needs an escape. Log
/// lines are printable ASCII with the odd `…`: the bytes are read in place,
/// eight at a time where they are all printable ASCII, and only a non-ASCII
/// scalar is decoded.
private func needsAnyEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var index = 0
    while index < bytes.count {
        // Words of printable ASCII, then one scalar (or the byte that stopped them) at a time.
        index += printableASCIIPrefix(of: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[index...])))
        guard index < bytes.count else { break }
        let lead = bytes[index]
        if lead < 0x80 {
            if lead &- 0x20 >= 0x5F { return true }
            index += 1
            continue
        }
        let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard index + length <= bytes.count else { return true }
        var value = UInt32(lead) & (0xFF >> (length + 1))
        for continuation in bytes[(index + 1)..<(index + length)] {
            value = value << 6 | UInt32(continuation & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value), !needsEscape(scalar) else { return true }
        index += length
    }
    return false
}

/// How many whole eight-byte words at the start of `bytes` are printable
/// ASCII (0x20…0x7E), in bytes: each word is tested at once for a byte
/// under 0x20, a byte with its top bit set, and DEL.
private func printableASCIIPrefix(of bytes: UnsafeRawBufferPointer) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    var offset = 0
    while offset + 8 <= bytes.count {
        let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let delete = word ^ (ones &* 0x7F)
        let isDelete = (delete &- ones) & ~delete & highs
        guard (below20 | isDelete | word & highs) == 0 else { break }
        offset += 8
    }
    return offset
}

extension Unicode.Scalar {
    /// The scalar's code point as `U+00AD`: how messages name a character
    /// that may be invisible or unsafe to show.
    public var codePointName: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// Whether `scalar` would be shown escaped by `displayable`.
public func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F: return true
    case 0x20..<0x7F: return false
    case 0x2028, 0x2029, EscapedBytes.firstEscape...: return true
    // Latin-1's letters and signs, and General Punctuation's dashes, quotes,
    // bullets and `…`: no format character among them but U+00AD (the soft
    // hyphen), so no table lookup for the characters log lines carry.
    case 0xA0...0xFF: return scalar.value == 0xAD
    case 0x2010...0x2027: return false
    default:
        // Every bidirectional control (U+061C, U+200E, U+200F, U+202A…U+202E,
        // U+2066…U+2069) is a format character too: one table lookup covers both.
        return scalar.properties.generalCategory == .format
    }
}
