import HostNames
import SafeText

/// Splits what follows a URL's scheme into host and path (RFC 3986 section 3).
///
/// For the schemes browsers call special (http, https, ws, wss, ftp), `\` is
/// read as `/` and any run of slashes (even none) leads to the authority, as the WHATWG URL
/// standard does: `http://a\@b` opens host `a` in a browser, so a handler for
/// `b` must not be asked about it. Matching follows what the opening
/// application will do, not what a stricter parser would say.
struct URLParts {
    var host: URLHost?
    /// Why `host` is `.invalid`, for people.
    var hostProblem: String?
    /// The host as written in the URL, before normalisation.
    var writtenHost: Substring?
    var port: UInt16?
    var path: Substring

    /// Whether browsers treat `scheme` as special (WHATWG "special scheme"):
    /// exactly the schemes with a default port.
    static func isSpecial(_ scheme: String) -> Bool { defaultPort(of: scheme) != nil }

    /// The port a special scheme implies (WHATWG "default port"), `nil` for
    /// any other scheme: the one table of special schemes.
    ///
    /// A `switch`, not a `Set`: a global collection of a `Hashable` type is
    /// made at first use by a run-time check of its generic requirements,
    /// which scans every protocol conformance in the binary, a tenth of a
    /// millisecond of each `openurl` run. The length comes first: most
    /// schemes that are not special are longer than five bytes, and a string
    /// comparison that fails costs more than one that succeeds.
    static func defaultPort(of scheme: String) -> UInt16? {
        guard scheme.utf8.count <= 5 else { return nil }
        switch scheme {
        case "https", "wss": return 443
        case "http", "ws": return 80
        case "ftp": return 21
        default: return nil
        }
    }

    /// The parts of `text`, whose bytes after its scheme and `:` (which
    /// start at `afterScheme`) `split` has found.
    init(_ text: String, _ split: Split, afterScheme start: Int) {
        // Cut once, at offsets found in one pass over the bytes (every cut is
        // at an ASCII byte, so on a code point's boundary).
        let bytes = text.utf8
        func at(_ offset: Int) -> String.Index { bytes.index(bytes.startIndex, offsetBy: start + offset) }
        guard let authority = split.authority else {
            host = nil
            writtenHost = nil
            port = nil
            path = text[at(0)..<at(split.hierarchicalEnd)]
            return
        }
        path = text[at(authority.upperBound)..<at(split.hierarchicalEnd)]
        let hostAndPort = HostAndPort(text[at(split.afterUserinfo)..<at(authority.upperBound)])
        writtenHost = hostAndPort.host
        (host, port, hostProblem) = Self.host(hostAndPort)
    }

    /// Where a URL's parts start and end, in bytes after its scheme's `:`.
    /// Code points, as the WHATWG parser reads them, not Characters: a
    /// combining mark after '/' does not hide the slash (`a.example/\u{301}@b`
    /// is host a.example), and bytes are much cheaper than graphemes.
    struct Split {
        /// Everything up to `?` or `#` is authority and path.
        var hierarchicalEnd: Int
        /// The authority, when there is one.
        var authority: Range<Int>?
        /// Where the authority's host starts, after any userinfo and its `@`.
        var afterUserinfo = 0

        init(of bytes: UnsafeBufferPointer<UInt8>, special: Bool) {
            func isSlash(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "/") || (special && byte == UInt8(ascii: "\\")) }
            hierarchicalEnd = bytes.count
            for index in bytes.indices where bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "#") {
                hierarchicalEnd = index
                break
            }
            var index = 0
            while index < hierarchicalEnd, isSlash(bytes[index]) { index += 1 }
            // Special schemes have an authority whatever the slashes (`http:x.org`
            // opens x.org); others only after exactly `//`.
            let hasAuthority = special ? index < hierarchicalEnd : index >= 2
            guard hasAuthority else { return }
            let start = special ? index : 2
            var end = start
            while end < hierarchicalEnd, !isSlash(bytes[end]) { end += 1 }
            authority = start..<end
            afterUserinfo = start
            var at = end
            while at > start {
                at -= 1
                if bytes[at] == UInt8(ascii: "@") {
                    afterUserinfo = at + 1
                    break
                }
            }
        }
    }

    /// The host of an authority (its userinfo taken off), as a browser reads
    /// it, and the port when one is given.
    static func host(_ split: HostAndPort) -> (URLHost?, UInt16?, String?) {
        let name = split.host
        var port: UInt16?
        // An empty port (`host:`) is allowed by RFC 3986 and means the default.
        if let digits = split.port, !digits.isEmpty {
            guard let value = HostAndPort.number(digits) else { return (.invalid, nil, "its port is not a number from 0 to 65535") }
            port = value
        }
        if name.isEmpty { return (nil, port, nil) }
        switch HostName.parse(name) {
        case .success(let host):
            switch host {
            case .ipv6: return (.ipv6(host.matchingKey), port, nil)
            case .domain, .ipv4: return (.name(host.matchingKey), port, nil)
            }
        case .failure(let failure):
            return (.invalid, port, failure.reason)
        }
    }
}

/// Decodes `%XX` escapes; `nil` when an escape is malformed or the result is not UTF-8.
public func percentDecoded(_ text: Substring) -> String? {
    guard text.contains("%") else { return String(text) }
    return percentDecodedBytes(text).flatMap { String(validating: $0, as: UTF8.self) }
}
