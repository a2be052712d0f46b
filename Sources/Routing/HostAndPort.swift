/// An authority's host and port, split at the last `:` outside an IPv6
/// literal's brackets: `localhost:3000`, `[::1]:8080`, `example.com`.
/// URLs and host patterns split the same way.
struct HostAndPort {
    let host: Substring
    /// What follows the `:`, possibly empty; `nil` when there is no `:`.
    let port: Substring?

    init(_ text: Substring) {
        // By code points (see URLParts), not Characters; found as an offset
        // in the contiguous bytes, then cut once (at an ASCII ':').
        let colon = text.utf8.withContiguousStorageIfAvailable(Self.colon) ?? Array(text.utf8).withUnsafeBufferPointer(Self.colon)
        guard let colon else {
            host = text
            port = nil
            return
        }
        let at = text.utf8.index(text.utf8.startIndex, offsetBy: colon)
        host = text[..<at]
        port = text[text.utf8.index(after: at)...]
    }

    /// Where the port's `:` is: the last one, after an IPv6 literal's `]`.
    private static func colon(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var start = 0
        if bytes.first == UInt8(ascii: "["), let close = bytes.firstIndex(of: UInt8(ascii: "]")) { start = close + 1 }
        var index = bytes.count
        while index > start {
            index -= 1
            if bytes[index] == UInt8(ascii: ":") { return index }
        }
        return nil
    }

    /// A port's value: decimal digits (leading zeros allowed, as in `:0080`)
    /// up to 65535; `nil` for anything else.
    static func number(_ digits: Substring) -> UInt16? {
        guard !digits.isEmpty else { return nil }
        var value: UInt32 = 0
        for digit in digits.utf8 {
            guard isASCIIDigit(digit) else { return nil }
            value = value * 10 + UInt32(digit - UInt8(ascii: "0"))
            guard value <= 65535 else { return nil }
        }
        return UInt16(value)
    }
}
