/// Splits what follows a URL's scheme into host and path (RFC 3986 section 3).
///
/// For the schemes browsers call special (http, https, ws, wss, ftp), `\` is
/// read as `/` and any run of slashes (even none) leads to the authority, as the WHATWG URL
/// standard does: `http://a\@b` opens host `a` in a browser, so a handler for
/// `b` must not be asked about it. Matching follows what the opening
/// application will do, not what a stricter parser would say.
struct URLParts {
    var host: URLHost?
    var path: Substring

    static let specialSchemes: Set<String> = ["http", "https", "ws", "wss", "ftp"]

    init(scheme: String, rest: Substring) {
        let special = Self.specialSchemes.contains(scheme)
        func isSlash(_ c: Character) -> Bool { c == "/" || (special && c == "\\") }

        // Everything up to '?' or '#' is authority and path.
        let hierarchical = rest[..<(rest.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex)]
        var index = hierarchical.startIndex
        var slashes = 0
        while index < hierarchical.endIndex, isSlash(hierarchical[index]) {
            slashes += 1
            index = hierarchical.index(after: index)
        }
        // Special schemes have an authority whatever the slashes (`http:x.org`
        // opens x.org); others only after exactly `//`.
        let hasAuthority = special ? index < hierarchical.endIndex : slashes >= 2
        guard hasAuthority else {
            host = nil
            path = hierarchical
            return
        }
        if !special {
            index = hierarchical.index(hierarchical.startIndex, offsetBy: 2)
        }
        let authorityEnd = hierarchical[index...].firstIndex(where: isSlash) ?? hierarchical.endIndex
        let authority = hierarchical[index..<authorityEnd]
        path = hierarchical[authorityEnd...]
        host = Self.host(in: authority)
    }

    /// The host of an authority: after the last `@`, before a `:port`.
    static func host(in authority: Substring) -> URLHost? {
        let afterUserinfo = authority[(authority.lastIndex(of: "@").map(authority.index(after:)) ?? authority.startIndex)...]
        if afterUserinfo.hasPrefix("[") {
            guard let close = afterUserinfo.firstIndex(of: "]") else { return .invalid }
            let literal = afterUserinfo[afterUserinfo.index(after: afterUserinfo.startIndex)..<close]
            let after = afterUserinfo[afterUserinfo.index(after: close)...]
            guard after.isEmpty || isPort(after) else { return .invalid }
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." || $0 == "%" || $0.isLetter || $0.isNumber })
            else { return .invalid }
            return .ipv6(literal.lowercased())
        }
        var name = afterUserinfo
        if let colon = name.lastIndex(of: ":") {
            guard isPort(name[colon...]) else { return .invalid }
            name = name[..<colon]
        }
        if name.isEmpty { return nil }
        guard let decoded = percentDecoded(name) else { return .invalid }
        let forbidden: Set<Character> = [" ", "#", "%", "/", ":", "<", ">", "?", "@", "[", "\\", "]", "^", "|"]
        if decoded.contains(where: { forbidden.contains($0) || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) {
            return .invalid
        }
        return .name(decoded.lowercased())
    }

    /// `:` followed by digits only (an empty port is allowed by RFC 3986).
    private static func isPort(_ text: Substring) -> Bool {
        text.first == ":" && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }
}

/// Decodes `%XX` escapes; `nil` when an escape is malformed or the result is not UTF-8.
public func percentDecoded(_ text: Substring) -> String? {
    guard text.contains("%") else { return String(text) }
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            continue
        }
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
            return nil
        }
        bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
