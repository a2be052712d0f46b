extension TextScan {
    /// Markdown links `[text](url)` and images `![alt](url)`: the link covers
    /// the whole construct and leads to its destination, when that is a URL,
    /// an e-mail address or a web address.
    mutating func findMarkdownLinks() {
        var open = 0
        while open < count {
            defer { open += 1 }
            guard scalars[open] == "[", let close = matchingBracket(from: open), self[close + 1] == "(",
                  let (destination, end) = destination(from: close + 2)
            else { continue }
            guard let link = Self.link(forDestination: text(destination)) else { continue }
            let start = open > 0 && scalars[open - 1] == "!" ? open - 1 : open
            if claim(start..<end, link.kind, url: link.url) { open = end - 1 }
        }
    }

    /// The `]` closing the `[` at `open`, on the same line.
    private func matchingBracket(from open: Int) -> Int? {
        var depth = 0
        var index = open
        while index < count, index - open < 2000 {
            switch scalars[index] {
            case "[": depth += 1
            case "]":
                depth -= 1
                if depth == 0 { return index }
            case "\n": return nil
            case "\\": index += 1
            default: break
            }
            index += 1
        }
        return nil
    }

    /// The destination after `](`: `<…>` or a run without spaces and with
    /// balanced parentheses, then an optional title, then `)`.
    private func destination(from start: Int) -> (Range<Int>, end: Int)? {
        var index = start
        let destination: Range<Int>
        if self[index] == "<" {
            while index < count, scalars[index] != ">", scalars[index] != "\n" { index += 1 }
            guard self[index] == ">" else { return nil }
            destination = (start + 1)..<index
            index += 1
        } else {
            var depth = 0
            while index < count, !scalars[index].properties.isWhitespace {
                if scalars[index] == "(" { depth += 1 }
                if scalars[index] == ")" {
                    if depth == 0 { break }
                    depth -= 1
                }
                index += 1
            }
            destination = start..<index
        }
        while self[index] == " " { index += 1 }
        if let quote = self[index], quote == "\"" || quote == "'" {
            index += 1
            while index < count, scalars[index] != quote, scalars[index] != "\n" { index += 1 }
            guard self[index] == quote else { return nil }
            index += 1
            while self[index] == " " { index += 1 }
        }
        guard self[index] == ")", !destination.isEmpty else { return nil }
        return (destination, index + 1)
    }

    /// What a destination leads to: it must be exactly one URL or address.
    static func link(forDestination text: String) -> (kind: DetectedLink.Kind, url: String)? {
        var scan = TextScan(text)
        scan.findSchemeURLs()
        scan.findEmailAddresses()
        scan.findBareWebAddresses()
        guard scan.found.count == 1, let link = scan.found.first, link.offset == 0, link.length == text.utf8.count else { return nil }
        return (link.kind, link.url)
    }
}
