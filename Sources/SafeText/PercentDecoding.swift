/// The bytes `%XX` escapes stand for (RFC 3986 section 2.1), whatever they
/// are: a URL's path names a file whose name need not be UTF-8, a D-Bus
/// address escapes a socket's path the same way. `nil` when a `%` is not
/// followed by two hex digits. (The WHATWG host parser's reading, which
/// keeps such a `%`, is `HostNames`'.)
///
///     percentDecodedBytes("caf%E9")  // [0x63, 0x61, 0x66, 0xE9]
///     percentDecodedBytes("50%")     // nil
public func percentDecodedBytes(_ text: Substring) -> [UInt8]? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            continue
        }
        guard let high = iterator.next().flatMap(hexDigitValue), let low = iterator.next().flatMap(hexDigitValue) else {
            return nil
        }
        bytes.append(high << 4 | low)
    }
    return bytes
}

/// The value of an ASCII hex digit (`0`–`9`, `a`–`f`, `A`–`F`); `nil` for any other byte.
public func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
