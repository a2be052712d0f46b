import LinearRegex
import Routing

/// A `Rewrite=` template: text with `$0`–`$9`, `${N}` and `${name}` standing
/// for the groups of the rule's `Match=` (`$0`: the whole match, or the whole
/// URL when the rule has no `Match=`), and `$$` for a dollar sign.
/// A group that did not take part in the match expands to nothing.
///
/// `${N:encode}` percent-encodes the group for use as one query value (every
/// byte but `A–Z a–z 0–9 - . _ ~`), so `a+b@x` stays `a+b@x` at the other end;
/// `${N:decode}` percent-decodes it, to unwrap a URL carried in a parameter
/// (`https://www.google.com/url?q=https%3A%2F%2F…`). Transforms chain, left
/// to right: `${to:decode:encode}` re-encodes a value that may be encoded already.
public struct URLTemplate: Sendable, Equatable, CustomStringConvertible {
    /// What is done to a group's text before it is put in.
    enum Transform: String, Sendable, Equatable, CaseIterable {
        case encode, decode
    }

    enum Part: Sendable, Equatable {
        case text(String)
        case group(Int, [Transform])
        case named(String, [Transform])
    }

    let parts: [Part]
    public let description: String

    /// Parses `text`, checking each reference against `pattern`'s groups.
    /// - Throws: a reason for people.
    public init(_ text: String, pattern: LinearRegex?) throws(RuleError) {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            literal += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            guard let next = rest.first else { throw RuleError("'$' at the end; write '$$' for a dollar sign") }
            let reference: Part
            if next == "$" {
                literal += "$"
                rest = rest.dropFirst()
                continue
            } else if let digit = next.wholeNumberValue, next.isASCII {
                reference = .group(digit, [])
                rest = rest.dropFirst()
            } else if next == "{", let close = rest.firstIndex(of: "}") {
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
                let words = inside.split(separator: ":", omittingEmptySubsequences: false)
                let name = String(words[0])
                var transform: [Transform] = []
                for word in words.dropFirst() {
                    guard let known = Transform(rawValue: String(word)) else {
                        throw RuleError("'${\(inside)}': after ':' comes encode or decode, not '\(word.prefix(32))'")
                    }
                    transform.append(known)
                }
                if let number = Int(name), name.allSatisfy(\.isASCII) {
                    reference = .group(number, transform)
                } else {
                    guard pattern?.groupNames[name] != nil else {
                        throw RuleError("'${\(name)}' names no group of Match=")
                    }
                    reference = .named(name, transform)
                }
            } else {
                throw RuleError("'$' must be followed by a digit, {N}, {N:encode}, {name}, {name:decode} or '$'")
            }
            if case .group(let number, _) = reference, number > (pattern?.captureCount ?? 0) {
                throw RuleError(pattern == nil
                    ? "'$\(number)' needs a Match= pattern; without one only $0 (the whole URL) is known"
                    : "'$\(number)' refers to a group Match= does not have (it has \(pattern!.captureCount))")
            }
            if !literal.isEmpty { parts.append(.text(literal)) }
            literal = ""
            parts.append(reference)
        }
        literal += rest
        if !literal.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
        self.description = text
    }

    /// The text with every reference replaced; `url` stands for `$0` when
    /// there is no match.
    public func expand(match: RegexMatch?, url: String) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .text(let text): result += text
            case .group(let number, let transform):
                result += transform.reduce(match.map { $0[number] ?? "" } ?? (number == 0 ? url : "")) { $1.apply($0) }
            case .named(let name, let transform):
                result += transform.reduce(match?[name] ?? "") { $1.apply($0) }
            }
        }
        return result
    }
}

extension URLTemplate.Transform {
    func apply(_ text: String) -> String {
        switch self {
        // Malformed escapes or bytes that are not UTF-8: left as written.
        case .decode: percentDecoded(Substring(text)) ?? text
        case .encode: Self.percentEncoded(text)
        }
    }

    /// Every byte but the unreserved ones (RFC 3986 section 2.3) as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return output
    }
}
