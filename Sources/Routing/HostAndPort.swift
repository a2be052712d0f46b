/// An authority's host and port, split at the last `:` outside an IPv6
/// literal's brackets: `localhost:3000`, `[::1]:8080`, `example.com`.
/// URLs and host patterns split the same way.
struct HostAndPort {
    let host: Substring
    /// What follows the `:`, possibly empty; `nil` when there is no `:`.
    let port: Substring?

    init(_ text: Substring) {
        // By code points (see URLParts), not Characters.
        let bytes = text.utf8
        let literalEnd = bytes.first == UInt8(ascii: "[") ? bytes.firstIndex(of: UInt8(ascii: "]")).map(bytes.index(after:)) : nil
        guard let colon = bytes[(literalEnd ?? bytes.startIndex)...].lastIndex(of: UInt8(ascii: ":")) else {
            host = text
            port = nil
            return
        }
        host = text[..<colon]
        port = text[bytes.index(after: colon)...]
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
