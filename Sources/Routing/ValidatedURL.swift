/// A URL that passed validation: an absolute URI with a lowercase scheme, no
/// control, whitespace, invisible or bidirectional-control characters, and at
/// most `ValidatedURL.maximumLength` bytes of UTF-8.
///
/// Everything after the scheme is kept byte-for-byte as received: what a
/// handler or the launched application sees is exactly what matching saw.
public struct ValidatedURL: Hashable, Sendable, CustomStringConvertible {
    /// The one place the length limit is set: 32 KiB of UTF-8.
    public static let maximumLength = 32 * 1024

    /// The URL as forwarded: lowercase scheme, `:`, the rest as received.
    public var text: String { parts.text }
    /// The scheme, lowercase, e.g. `https`.
    public var scheme: String { parts.scheme }
    /// The host, when the URL has an authority, as a browser reads it (see
    /// `HostName`): what host patterns are matched against.
    public var host: URLHost? { parts.host }
    /// The host as written, before normalisation (`ｅxample.COM.`).
    public var writtenHost: Substring? { parts.writtenHost }
    /// The port: as written, or the scheme's default (443 for `https`).
    public var port: UInt16? { parts.port }
    /// The path, as written (not percent-decoded); `/` when a URL with a host
    /// has none (`https://example.com?q` is at `/`, as browsers read it).
    public var path: Substring { parts.path }

    /// Everything, shared: a URL is copied through every step of a walk
    /// (its handlers' candidates, their asks, the route, the log line), and
    /// a copy is then one retain instead of one for each string in it.
    private final class Parts: Sendable {
        let text: String
        let scheme: String
        let host: URLHost?
        let writtenHost: Substring?
        let port: UInt16?
        let path: Substring

        init(text: String, scheme: String, host: URLHost?, writtenHost: Substring?, port: UInt16?, path: Substring) {
            self.text = text
            self.scheme = scheme
            self.host = host
            self.writtenHost = writtenHost
            self.port = port
            self.path = path
        }
    }
    private let parts: Parts

    /// Two URLs are the same URL when their texts are: every other part is read from the text.
    public static func == (left: ValidatedURL, right: ValidatedURL) -> Bool { left.parts === right.parts || left.text == right.text }
    /// Hashes the text, which every other part is read from.
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// Validates `input`.
    /// - Throws: `RoutingError.invalidURL` with the first problem and its byte offset.
    public init(_ input: String) throws(RoutingError) {
        // Characters, scheme and where the parts are, found in one pass over
        // the contiguous bytes (a native string's are): this runs for every
        // URL, on the caller's wait.
        var input = input
        let scan = try input.withUTF8 { bytes in Result { () throws(RoutingError) in try Scan(bytes) } }.get()
        // Nearly every scheme arrives lowercase: the input is then the text, not a copy.
        let text = scan.wasLowercase ? input : scan.scheme + String(Substring(input.utf8.dropFirst(scan.scheme.utf8.count)))
        let found = URLParts(text, scan.split, afterScheme: scan.scheme.utf8.count + 1)
        let defaultPort = URLParts.defaultPort(of: scan.scheme)
        // Fail closed: a web URL whose host we cannot read as a browser reads
        // it could be read otherwise by the browser it would go to, past every
        // host pattern (a block included). Whatever the host parser gets
        // wrong next, it is refused here, never passed on.
        if defaultPort != nil {  // a special scheme
            switch found.host {
            case .invalid?:
                let reason = found.hostProblem.map { " (\($0))" } ?? ""
                throw RoutingError(.invalidURL, "the host of this \(scan.scheme): URL cannot be read as a browser reads it\(reason)")
            case nil:
                throw RoutingError(.invalidURL, "\(scan.scheme): URLs need a host, and this one has none")
            default:
                break
            }
        }
        parts = Parts(
            text: text, scheme: scan.scheme, host: found.host, writtenHost: found.writtenHost, port: found.port ?? defaultPort,
            path: found.path.isEmpty && found.host != nil ? "/" : found.path)
    }

    /// What one pass over a URL's bytes finds: its scheme, lowercase, and
    /// where the parts after it are. Characters are checked first: " http://x"
    /// is better reported as whitespace at offset 0 than as a scheme that
    /// does not start with a letter.
    private struct Scan {
        let scheme: String
        let wasLowercase: Bool
        let split: URLParts.Split

        init(_ bytes: UnsafeBufferPointer<UInt8>) throws(RoutingError) {
            if bytes.count > maximumLength {
                throw RoutingError(.invalidURL, "URL is \(bytes.count) bytes long; the limit is \(maximumLength)")
            }
            // Printable ASCII but the space, which nearly every URL is; anything
            // else is looked at scalar by scalar.
            if !bytes.allSatisfy({ $0 &- 0x21 < 0x5E }) { try ValidatedURL.checkScalars(String(decoding: bytes, as: UTF8.self)) }
            if bytes.isEmpty { throw RoutingError(.invalidURL, "URL is empty") }
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
                throw RoutingError(.invalidURL, "URL has no scheme (expected something like 'https:')")
            }
            let scheme = UnsafeBufferPointer(rebasing: bytes[..<colon])
            guard let first = scheme.first else { throw RoutingError(.invalidURL, "URL has an empty scheme") }
            guard isASCIILetter(first) else { throw RoutingError(.invalidURL, "URL scheme must start with a letter") }
            // A non-scheme character before the first ':' means there is no scheme
            // at all (e.g. "example.com/a:b" or "-oProxyCommand=x").
            var upper = false
            for byte in scheme {
                guard isSchemeByte(byte) else { throw RoutingError(.invalidURL, "URL has no scheme (expected something like 'https:')") }
                upper = upper || isASCIIUpper(byte)
            }
            wasLowercase = !upper
            self.scheme = upper
                ? String(decoding: scheme.map { $0 | (isASCIIUpper($0) ? 0x20 : 0) }, as: UTF8.self) : String(decoding: scheme, as: UTF8.self)
            split = URLParts.Split(of: UnsafeBufferPointer(rebasing: bytes[(colon + 1)...]), special: URLParts.isSpecial(self.scheme))
        }
    }

    public var description: String { text }

    /// The scheme, host and nothing else: what may be logged without `--verbose`.
    public var redacted: String {
        var text = ""
        redactedParts { text += $0 }
        return text
    }

    /// Gives `redacted`'s parts to `add`, in order: the daemon builds its
    /// log line for every URL from parts in place, with no string joined.
    public func redactedParts(_ add: (String) -> Void) {
        add(scheme)
        guard let host = host?.description else { return add(":…") }
        add("://")
        // A DNS name has at most 253 characters; a longer host is cut, so
        // that no URL makes a log line of kilobytes.
        guard host.utf8.count > 253 else {
            add(host)
            return add("/…")
        }
        add("\(host.prefix(200))…(\(host.utf8.count) bytes)/…")
    }

    /// Throws at the first scalar no URL may hold, naming it and its byte offset.
    private static func checkScalars(_ input: String) throws(RoutingError) {
        var offset = 0
        for scalar in input.unicodeScalars {
            if let problem = problem(with: scalar) {
                throw RoutingError(.invalidURL, "URL contains \(problem) at offset \(offset)")
            }
            offset += UTF8.width(scalar)
        }
    }

    private static func problem(with scalar: Unicode.Scalar) -> String? {
        let value = scalar.value
        if value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) { return "a control character" }
        // Printable ASCII but the space needs no look at Unicode's tables.
        if value > 0x20 && value < 0x7F { return nil }
        if scalar.properties.isWhitespace { return "whitespace" }
        if scalar.properties.isBidiControl { return "a bidirectional control character" }
        // Invisible characters used to disguise links. ZWJ and ZWNJ are
        // allowed: some scripts need them in domain names.
        if value == 0x200B || value == 0x2060 || value == 0xFEFF { return "an invisible character" }
        return nil
    }
}

/// The host part of a URL's authority.
public enum URLHost: Hashable, Sendable, CustomStringConvertible {
    /// A domain (ASCII, lowercase, `xn--` labels, no trailing dot) or an
    /// IPv4 address in dotted decimal, as `HostName.matchingKey` gives them.
    case name(String)
    /// An IPv6 address in canonical form, without brackets.
    case ipv6(String)
    /// A host no browser would go to (e.g. `%2F` decoding to `/`); it
    /// matches no host pattern.
    case invalid

    /// The host as matched: `example.com`, `[::1]`, or `(invalid host)`.
    public var description: String {
        switch self {
        case .name(let name): name
        case .ipv6(let address): "[\(address)]"
        case .invalid: "(invalid host)"
        }
    }
}

func isASCIILetter(_ byte: UInt8) -> Bool { isASCIIUpper(byte) || (byte >= 0x61 && byte <= 0x7A) }
func isASCIIUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
func isASCIIDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

/// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`, RFC 3986 section 3.1.
func isSchemeByte(_ byte: UInt8) -> Bool {
    isASCIILetter(byte) || isASCIIDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
        || byte == UInt8(ascii: ".")
}

/// Whether `text` is a valid scheme name.
public func isValidScheme(_ text: some StringProtocol) -> Bool {
    guard let first = text.utf8.first, isASCIILetter(first) else { return false }
    return text.utf8.allSatisfy(isSchemeByte)
}
