import HostNames
import Routing

/// The text being scanned, as Unicode scalars with their UTF-8 offsets, and
/// what the finders have claimed so far (a scalar belongs to one link at most).
struct TextScan {
    let scalars: [Unicode.Scalar]
    /// `offsets[i]`: the UTF-8 offset of scalar `i`; `offsets[count]`: the text's length.
    private let offsets: [Int]
    private var claimed: [Bool]
    private(set) var found: [DetectedLink] = []

    /// The text's UTF-8, from which `text(_:)` copies a link's characters.
    private let utf8: [UInt8]

    init(_ text: some StringProtocol) {
        scalars = Array(text.unicodeScalars)
        utf8 = Array(text.utf8)
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
        // A copy of the bytes, which are valid UTF-8 already.
        String(decoding: utf8[offsets[range.lowerBound]..<offsets[range.upperBound]], as: UTF8.self)
    }

    func isFree(_ range: Range<Int>) -> Bool { !claimed[range].contains(true) }

    func isClaimed(_ index: Int) -> Bool { claimed[index] }

    /// Records a link over `range`, unless part of it is already taken, or
    /// the dispatcher would not accept its URL (a port over 65535, an
    /// `xn--` label that is no Punycode): then nothing is found there.
    ///
    /// - Parameter validated: the URL passed that check already (a Markdown
    ///   destination, found by a scan of its own).
    @discardableResult
    mutating func claim(_ range: Range<Int>, _ kind: DetectedLink.Kind, url: String, validated: Bool = false) -> Bool {
        guard !range.isEmpty, isFree(range) else { return false }
        guard validated || (try? ValidatedURL(url)) != nil else {
            block(range)
            return false
        }
        for index in range { claimed[index] = true }
        found.append(DetectedLink(kind: kind, url: url, offset: offsets[range.lowerBound],
                                  length: offsets[range.upperBound] - offsets[range.lowerBound]))
        return true
    }

    /// Takes `range` from every later finder without finding a link there:
    /// text that names a host that cannot be one (`http://✪df.ws/x`) must
    /// not yield a shorter host inside it, which would be another site.
    mutating func block(_ range: Range<Int>) {
        for index in range where index < claimed.count { claimed[index] = true }
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
    /// around them (`< > " \` { } | \ ^`), CJK punctuation, and the
    /// full-width forms of ASCII punctuation (`｜`, `［］`, `＂`, `＜＞`,
    /// `｛｝`, …: CJK text writes its punctuation full-width, and none of
    /// them is part of a URL as written), with the half-width CJK ones.
    static func endsURL(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return scalar.value <= 0x20 || scalar.value == 0x7F || urlEnders.contains(scalar)
        }
        switch scalar.value {
        case 0x3000...0x303F, 0xFF01...0xFF0F, 0xFF1A...0xFF20, 0xFF3B...0xFF40, 0xFF5B...0xFF65,
             0x2018...0x201F, 0x00AB, 0x00BB:
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

    /// Markup that comes in pairs around a link (`~~strike~~`, `_emphasis_`):
    /// dropped from a link's end when the same mark stands right before it.
    static let pairedMarks = ASCIISet("~_")

    /// Letters of the scripts written without spaces between words (Han,
    /// kana, Thai, Lao, Khmer, Myanmar) and of Hangul, whose particles are
    /// written onto the word before: where a link written in ASCII meets
    /// one, the link has ended (`example.com中国語`, `example.com에서`).
    static func isUnspaced(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value >= 0x0E00 else { return false }
        switch Script.classify(scalar) {
        case .letter(.han), .letter(.hiragana), .letter(.katakana), .letter(.hangul), .letter(.bopomofo),
             .letter(.thai), .letter(.lao), .letter(.khmer), .letter(.myanmar):
            return true
        case .common:
            return scalar.value >= 0x3000  // the prolonged sound mark and the iteration marks
        default:
            return false
        }
    }

    /// Whether a zero-width joiner or non-joiner at `index` is part of a
    /// word: between two letters or signs of one Brahmic script (Devanagari
    /// to Sinhala, Myanmar, Khmer), where it selects a conjunct or a chillu
    /// form (`ന്‍`, `ශ්‍රී`). Anywhere else it is invisible, and ends a URL.
    static func isJoinerInWord(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        guard scalars[index] == "\u{200D}" || scalars[index] == "\u{200C}", index > 0, index + 1 < scalars.count,
              case .letter(let before) = Script.classify(scalars[index - 1]),
              case .letter(let after) = Script.classify(scalars[index + 1]), before == after
        else { return false }
        switch before {
        case .devanagari, .bengali, .gurmukhi, .gujarati, .oriya, .tamil, .telugu, .kannada, .malayalam, .sinhala,
             .myanmar, .khmer:
            return true
        default:
            return false
        }
    }

    private static let urlEnders = ASCIISet("<>\"`{}|\\^")
    private static let trailingPunctuation = ASCIISet(".,:;!?'*")
}

extension TextScan {
    static let closingEntities = ["&gt", "&lt", "&quot", "&#39", "&apos"].map { Array($0.unicodeScalars) }

    private func hasSuffix(_ suffix: [Unicode.Scalar], before end: Int) -> Bool {
        end >= suffix.count && scalars[(end - suffix.count)..<end].elementsEqual(suffix)
    }

    /// The label at `range` lowercased in ASCII, as IANA's list and DNS
    /// spell it: Punycode for a label with other letters; `nil` when it
    /// cannot be encoded.
    func asciiLabel(_ range: Range<Int>) -> String? {
        let label = scalars[range]
        guard label.allSatisfy(\.isASCII) else { return Punycode.asciiLabel(Array(label)) }
        return String(decoding: utf8[offsets[range.lowerBound]..<offsets[range.upperBound]].map { $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) }, as: UTF8.self)
    }

    /// Whether the scalar at `index` ends a URL (a joiner inside a word of
    /// a Brahmic script does not), or, in a URL written in ASCII
    /// (`unspacedEnds`), starts a run of a script written without spaces.
    func endsURL(at index: Int, unspacedEnds: Bool = false) -> Bool {
        let scalar = scalars[index]
        if scalar.isASCII { return Characters.endsURL(scalar) }
        if unspacedEnds, Characters.isUnspaced(scalar) { return true }
        return Characters.endsURL(scalar) && !Characters.isJoinerInWord(scalars, at: index)
    }

    /// The end of a URL starting at `start`: up to the first character that
    /// ends URLs (scanning from `scan`, by default `start`), minus trailing
    /// punctuation and closing brackets that have no opening one inside the
    /// URL (`(see https://x/a_(b)).` keeps `(b)`), and a mark that pairs with
    /// the one before the URL (`~~https://x~~`).
    func urlEnd(from start: Int, scanningFrom scan: Int? = nil, notBefore minimum: Int, unspacedEnds: Bool = false) -> Int {
        var end = scan ?? start
        while end < count, !endsURL(at: end, unspacedEnds: unspacedEnds) { end += 1 }
        return trimmedEnd(start: start, end: end, notBefore: minimum)
    }

    /// `end`, less what ends a sentence, closes unopened brackets or pairs
    /// with the mark before `start`.
    func trimmedEnd(start: Int, end: Int, notBefore minimum: Int) -> Int {
        var end = end
        let mark = start > 0 && Characters.pairedMarks.contains(scalars[start - 1]) ? scalars[start - 1] : nil
        while end > minimum {
            let last = scalars[end - 1]
            if Characters.isTrailingPunctuation(last) || last == mark {
                end -= 1
                continue
            }
            // Text copied from HTML: "&gt;" and friends after a URL close it
            // (their ";" is gone already); "&amp;" inside a query stays.
            // (Every entity ends in a letter or a digit: nothing else is looked for.)
            if Characters.isASCIILetter(last) || Characters.isDigit(last),
               let entity = Self.closingEntities.first(where: { hasSuffix($0, before: end) }), end - entity.count > minimum {
                end -= entity.count
                continue
            }
            if last == ")" || last == "]" {
                let open: Unicode.Scalar = last == ")" ? "(" : "["
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
