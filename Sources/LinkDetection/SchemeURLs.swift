extension TextScan {
    /// Schemes recognised without `//` after the colon: URLs of other
    /// schemes need `scheme://`, so that "Note: this" or "10:30" is no link.
    static let opaqueSchemes: Set<String> = [
        "mailto", "tel", "sms", "callto", "sip", "sips", "xmpp", "magnet", "geo", "news", "bitcoin", "msteams", "urn",
    ]
    /// Schemes never turned into links: they carry code or content, not a place.
    static let refusedSchemes: Set<String> = ["javascript", "vbscript", "data"]

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
            guard colon - start >= 2 else { continue }
            let scheme = text(start..<colon).lowercased()
            guard !Self.refusedSchemes.contains(scheme) else { continue }
            let hierarchical = self[colon + 1] == "/" && self[colon + 2] == "/"
            let body = hierarchical ? colon + 3 : colon + 1
            if hierarchical {
                // Something must follow "//": a host, or for file:/// a path.
                guard let first = self[body], !Characters.endsURL(first), !Characters.isTrailingPunctuation(first) else { continue }
                if Self.kind(ofScheme: scheme) == .web, !(Characters.isLetterOrDigit(first) || first == "[") { continue }
            } else {
                guard Self.opaqueSchemes.contains(scheme), let first = self[body], !Characters.endsURL(first) else { continue }
            }
            let end = urlEnd(from: start, notBefore: body)
            guard end > body else { continue }
            if claim(start..<end, Self.kind(ofScheme: scheme), url: text(start..<end)) { colon = end - 1 }
        }
    }

    private func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        Characters.isASCIILetter(scalar) || Characters.isDigit(scalar) || scalar == "+" || scalar == "-" || scalar == "."
    }
}
