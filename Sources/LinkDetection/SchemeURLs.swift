import HostNames
import Routing

extension TextScan {
    /// Schemes recognised without `//` after the colon: URLs of other
    /// schemes need `scheme://`, so that "Note: this" or "10:30" is no link.
    static let opaqueSchemes: Set<String> = [
        "mailto", "tel", "sms", "callto", "sip", "sips", "xmpp", "magnet", "geo", "news", "bitcoin", "msteams", "urn",
    ]

    static func kind(ofScheme scheme: String) -> DetectedLink.Kind {
        switch scheme {
        case "http", "https", "ftp", "ftps": .web
        case "mailto": .email
        case "tel", "callto", "sms": .phone
        default: .other
        }
    }

    /// `scheme://…` for any scheme, and `scheme:…` for the opaque ones.
    mutating func findSchemeURLs() {
        var colon = 0
        while colon < count {
            defer { colon += 1 }
            guard scalars[colon] == ":", colon > 0, !isClaimed(colon) else { continue }
            var start = colon
            while start > 0, isSchemeCharacter(scalars[start - 1]) { start -= 1 }
            while start < colon, !Characters.isASCIILetter(scalars[start]) { start += 1 }
            guard colon - start >= 2, colon - start <= 32 else { continue }
            let scheme = text(start..<colon).lowercased()
            guard RefusedScheme(scheme) == nil else { continue }
            let hierarchical = self[colon + 1] == "/" && self[colon + 2] == "/"
            let body = hierarchical ? colon + 3 : colon + 1
            let kind = Self.kind(ofScheme: scheme)
            var end: Int
            if hierarchical {
                // Something must follow "//": a host, or for file:/// a path.
                guard let first = self[body], !endsURL(at: body), !Characters.isTrailingPunctuation(first) else { continue }
                end = urlEnd(from: start, notBefore: body)
                if first != "/" {
                    // The host as the text writes it must be one, or nothing
                    // is found here: not a shorter host inside it either.
                    guard let authority = authority(of: start, in: body..<end, web: kind == .web) else {
                        block(start..<end)
                        colon = end - 1
                        continue
                    }
                    end = authority.end
                }
            } else {
                guard Self.opaqueSchemes.contains(scheme), self[body] != nil, !endsURL(at: body) else { continue }
                end = urlEnd(from: start, notBefore: body)
            }
            guard end > body else { continue }
            if claim(start..<end, kind, url: text(start..<end)) { colon = end - 1 }
        }
    }

    /// Checks the authority of the hierarchical URL at `start` whose text
    /// runs over `range` (from just after `//`), and says where the URL ends.
    ///
    /// The host is labels of letters (any script), digits, and inner `-`
    /// and `_` (`_` not in a web URL's last two labels), or an IP literal
    /// in brackets; `nil` when it is not (`✪df.ws`, `-x.example`,
    /// `x.example_/`). A host written in ASCII ends where a script written
    /// without spaces begins after a top-level domain
    /// (`http://example.comだよね` is `example.com`), and then so does its
    /// path (`http://example.com/これ` is `http://example.com/`). `_` and
    /// `-` closing the whole URL are dropped (`http://example.com_`).
    func authority(of start: Int, in range: Range<Int>, web: Bool) -> (end: Int, host: Range<Int>)? {
        var index = range.lowerBound
        var hostStart = index
        var labelStart = index
        var hostEnd: Int?
        var ascii = true
        // The authority's end: "/", "?" or "#", the URL's end, or a host in
        // ASCII running into unspaced text after a top-level domain.
        while index < range.upperBound {
            let scalar = scalars[index]
            if scalar == "/" || scalar == "?" || scalar == "#" { break }
            if scalar == "@" { hostStart = index + 1; labelStart = index + 1; ascii = true }
            if scalar == "." || scalar == ":" { labelStart = index + 1 }
            if !scalar.isASCII {
                if ascii, Characters.isUnspaced(scalar), labelStart > hostStart, isTopLevelDomain(labelStart..<index) {
                    hostEnd = index
                    break
                }
                ascii = false
            }
            index += 1
        }
        var end = hostEnd ?? index
        let cutShort = hostEnd != nil
        if cutShort || end == range.upperBound {
            // Nothing follows the authority: marks after it are the text's.
            while end > hostStart, scalars[end - 1] == "_" || scalars[end - 1] == "-" { end -= 1 }
            guard end > hostStart else { return nil }
        }
        let authorityEnd = end
        // The host: after userinfo, before a port.
        var host = hostStart..<authorityEnd
        if scalars[hostStart] == "[" {
            guard let close = scalars[host].firstIndex(of: "]") else { return nil }
            host = hostStart..<(close + 1)
            guard close + 1 == authorityEnd || (scalars[close + 1] == ":" && isPort((close + 2)..<authorityEnd)) else { return nil }
        } else {
            if let colon = scalars[host].lastIndex(of: ":") {
                guard isPort((colon + 1)..<authorityEnd) else { return nil }
                host = hostStart..<colon
            }
            guard isHostName(host, web: web) else { return nil }
        }
        guard !cutShort, authorityEnd < range.upperBound, "/?#".unicodeScalars.contains(scalars[authorityEnd]) else {
            return (authorityEnd, host)
        }
        // A host in ASCII: its path ends where unspaced text begins.
        let plain = scalars[host].allSatisfy(\.isASCII)
        let pathEnd = plain ? urlEnd(from: start, scanningFrom: authorityEnd, notBefore: authorityEnd, unspacedEnds: true) : range.upperBound
        return (min(pathEnd, range.upperBound), host)
    }

    /// Digits making a port from 0 to 65535, or none (`http://x:/` is `x`'s default port).
    private func isPort(_ range: Range<Int>) -> Bool {
        guard range.count <= 5, scalars[range].allSatisfy(Characters.isDigit) else { return false }
        return scalars[range].reduce(0) { $0 * 10 + Int($1.value - 48) } <= 65535
    }

    private static let labelEdges = ASCIISet("-_")

    /// Labels of letters, digits and inner `-` or `_` (and `%` escapes), with no empty label
    /// but a final one (`example.com.`); a web URL's last two labels have no `_`.
    private func isHostName(_ range: Range<Int>, web: Bool) -> Bool {
        guard !range.isEmpty else { return false }
        // One pass: each label's edges and characters, then its length.
        var labels: [Range<Int>] = []
        var labelStart = range.lowerBound
        for index in range where scalars[index] == "." {
            labels.append(labelStart..<index)
            labelStart = index + 1
        }
        if labelStart < range.upperBound || labels.isEmpty { labels.append(labelStart..<range.upperBound) }
        var length = labels.count - 1
        for (position, label) in labels.enumerated() {
            guard !label.isEmpty, !Self.labelEdges.contains(scalars[label.lowerBound]),
                  !Self.labelEdges.contains(scalars[label.upperBound - 1])
            else { return false }
            var ascii = true
            for scalar in scalars[label] {
                if scalar.isASCII {
                    guard Characters.isASCIILetter(scalar) || Characters.isDigit(scalar) || Self.labelInner.contains(scalar) else { return false }
                } else {
                    guard Characters.isLetterOrDigit(scalar) || isCombiningMark(scalar) else { return false }
                    ascii = false
                }
            }
            // `_` is found in the names of hosts (`my_host.example.com`), but
            // no registry gives it to a domain or a top-level domain.
            if web, labels.count > 1, position >= labels.count - 2, scalars[label].contains("_") { return false }
            // DNS: 63 octets a label, 253 a name, as written in ASCII.
            let octets = ascii ? label.count : asciiLabel(label).map(\.utf8.count) ?? 64
            guard octets <= 63 else { return false }
            length += octets
        }
        return length <= 253
    }

    private static let labelInner = ASCIISet("-_%")

    private func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.isASCII && (scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .spacingMark)
    }

    private func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        Characters.isASCIILetter(scalar) || Characters.isDigit(scalar) || scalar == "+" || scalar == "-" || scalar == "."
    }
}
