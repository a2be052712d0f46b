import SafeText

/// A URL's host as a browser reads it: the WHATWG URL Standard's host parser
/// (percent-decoding, UTS #46 mapping with the standard's flags, Punycode,
/// IPv4 in every notation browsers accept, IPv6 in canonical form).
///
///     HostName.parse("ｅxample。COM")   // .domain("example.com")
///     HostName.parse("0x7f.1")          // .ipv4("127.0.0.1")
///     HostName.parse("bücher.example")  // .domain("xn--bcher-kva.example")
///
/// Matching on this form means a block on `example.com` cannot be sidestepped
/// by another spelling that a browser would still send to `example.com`.
///
/// Departures from the standard, each only ever accepting a name a browser
/// rejects, never reading a name differently: the UTS #46 CheckBidi and
/// CheckJoiners rules are not applied (a name they refuse cannot be visited,
/// so matching it is harmless), and general categories come from the Swift
/// runtime's Unicode version rather than the mapping table's.
public enum HostName: Hashable, Sendable, CustomStringConvertible {
    /// A domain in ASCII: lowercase, internationalised labels as `xn--…`.
    /// A trailing dot is kept, as the standard keeps it.
    case domain(String)
    /// An IPv4 address in dotted decimal.
    case ipv4(String)
    /// An IPv6 address in its canonical form, without brackets.
    case ipv6(String)

    /// Why a host is not one a browser would go to.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong, as a sentence fragment ("an IPv6 address lacks its closing ']'").
        public let reason: String
        init(_ reason: String) { self.reason = reason }
        /// The reason.
        public var description: String { reason }
    }

    /// The host as a URL writes it: the domain or IPv4 address, an IPv6 address in brackets.
    public var description: String {
        switch self {
        case .domain(let name), .ipv4(let name): name
        case .ipv6(let address): "[\(address)]"
        }
    }

    /// Parses a host as it appears in a URL's authority, `%XX` escapes and
    /// `[…]` brackets included.
    public static func parse(_ input: some StringProtocol) -> Result<HostName, Failure> { parse(Substring(input)) }

    /// Parses a host as it appears in a URL's authority.
    public static func parse(_ input: String) -> Result<HostName, Failure> { parse(input[...]) }

    /// Parses a host as it appears in a URL's authority. Concrete, not over
    /// `StringProtocol`: callers in other modules would run the generic body
    /// unspecialized, asking the runtime for its associated types on every
    /// step (a quarter of a million instructions the first time).
    public static func parse(_ input: Substring) -> Result<HostName, Failure> {
        // The common host is read where it lies (a native string's bytes
        // are contiguous); anything else is copied once and parsed in full.
        let inPlace = input.utf8.withContiguousStorageIfAvailable(parsePlain)
        if case let plain?? = inPlace { return plain }
        let bytes = Array(input.utf8)
        if case .none = inPlace, let plain = bytes.withUnsafeBufferPointer(parsePlain) { return plain }
        return parseInFull(bytes)
    }

    /// The standard's host parser, every step, for any host.
    static func parseInFull(_ bytes: [UInt8]) -> Result<HostName, Failure> {
        if bytes.first == UInt8(ascii: "[") {
            guard bytes.last == UInt8(ascii: "]"), bytes.count > 2 else { return .failure(Failure("an IPv6 address lacks its closing ']'")) }
            return IPv6Address.parse(bytes[1..<bytes.count - 1]).map { .ipv6($0.description) }
        }
        guard let decoded = String(validating: percentDecoded(bytes), as: UTF8.self) else {
            return .failure(Failure("percent-escapes that are not UTF-8"))
        }
        let ascii: String
        switch DomainToASCII.convert(decoded) {
        case .success(let converted): ascii = converted
        case .failure(let failure): return .failure(failure)
        }
        if let forbidden = ascii.unicodeScalars.first(where: isForbiddenDomainCodePoint) {
            return .failure(Failure("contains \(forbidden.codePointName), which no host may contain"))
        }
        if IPv4Address.endsInANumber(ascii) {
            return IPv4Address.parse(ascii).map { .ipv4($0.description) }
        }
        return .success(.domain(ascii))
    }

    /// The common host in one pass over its bytes: ASCII letters, digits,
    /// `-` and `.`, which the full path's steps (no escapes to decode,
    /// domain-to-ASCII's ASCII path, no forbidden code point) map to itself
    /// lowercased, `xn--` labels included (`parseInFull` is the reference:
    /// `PlainHostTests` holds the two to the same answers). `nil` for
    /// anything else, which takes the full path.
    private static func parsePlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<HostName, Failure>? {
        guard !bytes.isEmpty else { return nil }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
                continue
            default: return nil
            }
        }
        if IPv4Address.endsInANumber(bytes) {
            return IPv4Address.parse(lowercased(bytes)).map { .ipv4($0.description) }
        }
        return .success(.domain(lowercased(bytes)))
    }

    /// ASCII bytes as a string, `A`–`Z` lowercased.
    private static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for index in bytes.indices {
                let byte = bytes[index]
                buffer[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    /// The form to compare with patterns: a domain without its trailing dot
    /// (`example.com.` is `example.com` to DNS and to every browser).
    public var matchingKey: String {
        switch self {
        // (By bytes: counting the characters of every host cost a grapheme walk.)
        case .domain(let name): name.utf8.count > 1 && name.utf8.last == UInt8(ascii: ".") ? String(name.dropLast()) : name
        case .ipv4(let address), .ipv6(let address): address
        }
    }
}

/// Decodes `%XX` as the WHATWG URL standard's percent-decode does: a `%`
/// not followed by two hex digits stays as it is (and then makes the host
/// invalid, as `%` is forbidden in hosts). `percentDecodedBytes` refuses it.
func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
           let high = hexDigitValue(bytes[index + 1]), let low = hexDigitValue(bytes[index + 2]) {
            output.append(high << 4 | low)
            index += 3
        } else {
            output.append(bytes[index])
            index += 1
        }
    }
    return output
}

/// The WHATWG "forbidden domain code points".
func isForbiddenDomainCodePoint(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "\u{0}"..."\u{20}", "\u{7F}", "#", "%", "/", ":", "<", ">", "?", "@", "[", "\\", "]", "^", "|": true
    default: false
    }
}
