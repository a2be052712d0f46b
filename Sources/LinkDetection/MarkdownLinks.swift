extension TextScan {
    /// Markdown links `[text](url)` and images `![alt](url)`: the link covers
    /// the whole construct and leads to its destination, when that is a URL,
    /// an e-mail address or a web address.
    ///
    /// Linear in the text whatever it holds (`[a](` repeated over a megabyte
    /// once took minutes): brackets and parentheses are paired in one pass,
    /// and a destination that contains `](` is refused before it is read.
    /// No URL contains `](`, and this makes the destinations that are read
    /// disjoint.
    ///
    /// A link whose text holds another (a badge: `[![build](https://ci/badge.svg)](https://ci/)`)
    /// is two links: the inner one covers its own construct, and the outer
    /// one its destination, so that neither address is lost.
    mutating func findMarkdownLinks() {
        guard let pairs = BracketPairs(scalars) else { return }
        var outer: [(destination: Range<Int>, kind: DetectedLink.Kind, url: String)] = []
        var open = 0
        while open < count {
            defer { open += 1 }
            guard scalars[open] == "[", let close = pairs.partner(of: open), self[close + 1] == "(",
                  let end = pairs.partner(of: close + 1), !pairs.hasLinkOpening(in: (close + 2)..<end),
                  let destination = destination(in: (close + 2)..<end),
                  let link = Self.link(forDestination: text(destination))
            else { continue }
            if pairs.hasLinkOpening(in: (open + 1)..<close) {
                // The inner links come next in this loop; the outer one takes
                // what they leave: its destination.
                outer.append((destination, link.kind, link.url))
                continue
            }
            let start = open > 0 && scalars[open - 1] == "!" ? open - 1 : open
            if claim(start..<(end + 1), link.kind, url: link.url, validated: true) { open = end }
        }
        for link in outer { claim(link.destination, link.kind, url: link.url, validated: true) }
    }

    /// The destination inside `(…)`: `<…>` or a run without spaces, then an
    /// optional title in quotes, and nothing else.
    private func destination(in inner: Range<Int>) -> Range<Int>? {
        var index = inner.lowerBound
        let destination: Range<Int>
        if self[index] == "<" {
            while index < inner.upperBound, scalars[index] != ">" { index += 1 }
            guard index < inner.upperBound else { return nil }
            destination = (inner.lowerBound + 1)..<index
            index += 1
        } else {
            while index < inner.upperBound, !scalars[index].properties.isWhitespace { index += 1 }
            destination = inner.lowerBound..<index
        }
        while index < inner.upperBound, scalars[index] == " " { index += 1 }
        if index < inner.upperBound, scalars[index] == "\"" || scalars[index] == "'" {
            let quote = scalars[index]
            index += 1
            while index < inner.upperBound, scalars[index] != quote { index += 1 }
            guard index < inner.upperBound else { return nil }
            index += 1
            while index < inner.upperBound, scalars[index] == " " { index += 1 }
        }
        guard index == inner.upperBound, !destination.isEmpty else { return nil }
        return destination
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

/// Which `[` closes with which `]`, and `(` with `)`, on the same line (a
/// backslash escapes the character after it), and where `](` occurs.
struct BracketPairs {
    /// For each opening bracket or parenthesis, the index of its partner; -1 when none.
    private var partners: [Int32]
    /// `linkOpenings[i]`: how many `](` start before index `i`.
    private var linkOpenings: [Int32]

    /// `nil` when the text has no `](`, and so no Markdown link.
    init?(_ scalars: [Unicode.Scalar]) {
        guard zip(scalars, scalars.dropFirst()).contains(where: { $0 == "]" && $1 == "(" }) else { return nil }
        partners = [Int32](repeating: -1, count: scalars.count)
        linkOpenings = [Int32](repeating: 0, count: scalars.count + 1)
        var brackets: [Int] = []
        var parentheses: [Int] = []
        var index = 0
        var openings: Int32 = 0
        while index < scalars.count {
            linkOpenings[index] = openings
            switch scalars[index] {
            case "\n":
                brackets.removeAll(keepingCapacity: true)
                parentheses.removeAll(keepingCapacity: true)
            case "\\":
                if index + 1 < scalars.count { linkOpenings[index + 1] = openings }
                index += 1
            case "[": brackets.append(index)
            case "(": parentheses.append(index)
            case "]":
                if let open = brackets.popLast() { partners[open] = Int32(index) }
                if index + 1 < scalars.count, scalars[index + 1] == "(" { openings += 1 }
            case ")":
                if let open = parentheses.popLast() { partners[open] = Int32(index) }
            default: break
            }
            index += 1
        }
        linkOpenings[scalars.count] = openings
    }

    func partner(of index: Int) -> Int? {
        guard index < partners.count, partners[index] >= 0 else { return nil }
        return Int(partners[index])
    }

    /// Whether a `](` starts inside `range`.
    func hasLinkOpening(in range: Range<Int>) -> Bool {
        !range.isEmpty && linkOpenings[range.upperBound - 1] > linkOpenings[range.lowerBound]
    }
}
