/// The text being scanned, as Unicode scalars with their UTF-8 offsets, and
/// what the finders have claimed so far (a scalar belongs to one link at most).
struct TextScan {
    let scalars: [Unicode.Scalar]
    /// `offsets[i]`: the UTF-8 offset of scalar `i`; `offsets[count]`: the text's length.
    private let offsets: [Int]
    private var claimed: [Bool]
    private(set) var found: [DetectedLink] = []

    init(_ text: some StringProtocol) {
        scalars = Array(text.unicodeScalars)
        var offsets = [Int]()
        offsets.reserveCapacity(scalars.count + 1)
        var offset = 0
        for scalar in scalars {
            offsets.append(offset)
            offset += UTF8.width(scalar)
        }
        offsets.append(offset)
        self.offsets = offsets
        claimed = [Bool](repeating: false, count: scalars.count)
    }

    var count: Int { scalars.count }

    subscript(_ index: Int) -> Unicode.Scalar? { index >= 0 && index < scalars.count ? scalars[index] : nil }

    func text(_ range: Range<Int>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[range])
        return text
    }

    func isFree(_ range: Range<Int>) -> Bool { !claimed[range].contains(true) }

    func isClaimed(_ index: Int) -> Bool { claimed[index] }

    /// Records a link over `range`, unless part of it is already taken.
    @discardableResult
    mutating func claim(_ range: Range<Int>, _ kind: DetectedLink.Kind, url: String) -> Bool {
        guard !range.isEmpty, isFree(range) else { return false }
        for index in range { claimed[index] = true }
        found.append(DetectedLink(kind: kind, url: url, offset: offsets[range.lowerBound],
                                  length: offsets[range.upperBound] - offsets[range.lowerBound]))
        return true
    }
}

/// Character classes shared by the finders.
enum Characters {
    static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        isASCIILetter(scalar) || isDigit(scalar) || (!scalar.isASCII && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil))
    }

    /// Where a URL ends: white space, controls and invisible format
    /// characters, the characters URLs never contain unescaped and text puts
    /// around them (`< > " \` { } | \ ^`), and CJK punctuation.
    static func endsURL(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return scalar.value <= 0x20 || scalar.value == 0x7F || urlEnders.contains(scalar)
        }
        switch scalar.value {
        case 0x3000...0x303F, 0xFF01, 0xFF08, 0xFF09, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F, 0x2018...0x201F, 0x00AB, 0x00BB:
            return true
        default:
            let category = scalar.properties.generalCategory
            return scalar.properties.isWhitespace || category == .format || category == .control
                || category == .lineSeparator || category == .paragraphSeparator
        }
    }

    /// Punctuation that ends a sentence or a clause rather than a URL.
    static func isTrailingPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        trailingPunctuation.contains(scalar) || scalar == "…"
    }

    private static let urlEnders = ASCIISet("<>\"`{}|\\^")
    private static let trailingPunctuation = ASCIISet(".,:;!?'*")
}

extension TextScan {
    static let closingEntities = ["&gt", "&lt", "&quot", "&#39", "&apos"].map { Array($0.unicodeScalars) }

    private func hasSuffix(_ suffix: [Unicode.Scalar], before end: Int) -> Bool {
        end >= suffix.count && Array(scalars[(end - suffix.count)..<end]) == suffix
    }

    /// The end of a URL starting at `start`: up to the first character that
    /// ends URLs, minus trailing punctuation and closing brackets that have
    /// no opening one inside the URL (`(see https://x/a_(b)).` keeps `(b)`).
    func urlEnd(from start: Int, notBefore minimum: Int) -> Int {
        var end = start
        while end < count, !Characters.endsURL(scalars[end]) { end += 1 }
        while end > minimum {
            let last = scalars[end - 1]
            if Characters.isTrailingPunctuation(last) {
                end -= 1
                continue
            }
            // Text copied from HTML: "&gt;" and friends after a URL close it
            // (their ";" is gone already); "&amp;" inside a query stays.
            if last != ";", let entity = Self.closingEntities.first(where: { hasSuffix($0, before: end) }), end - entity.count > minimum {
                end -= entity.count
                continue
            }
            let pairs: [(Unicode.Scalar, Unicode.Scalar)] = [("(", ")"), ("[", "]")]
            if let (open, _) = pairs.first(where: { $0.1 == last }) {
                let opened = scalars[start..<end].count { $0 == open }
                let closed = scalars[start..<end].count { $0 == last }
                if closed > opened {
                    end -= 1
                    continue
                }
            }
            break
        }
        return end
    }
}
