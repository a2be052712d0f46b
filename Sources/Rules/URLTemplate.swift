import LinearRegex

/// A `Rewrite=` template: text with `$0`–`$9`, `${N}` and `${name}` standing
/// for the groups of the rule's `Match=` (`$0`: the whole match, or the whole
/// URL when the rule has no `Match=`), and `$$` for a dollar sign.
/// A group that did not take part in the match expands to nothing.
public struct URLTemplate: Sendable, Equatable, CustomStringConvertible {
    enum Part: Sendable, Equatable {
        case text(String)
        case group(Int)
        case named(String)
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
                reference = .group(digit)
                rest = rest.dropFirst()
            } else if next == "{", let close = rest.firstIndex(of: "}") {
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
                if let number = Int(name), name.allSatisfy(\.isASCII) {
                    reference = .group(number)
                } else {
                    guard pattern?.groupNames[name] != nil else {
                        throw RuleError("'${\(name)}' names no group of Match=")
                    }
                    reference = .named(name)
                }
            } else {
                throw RuleError("'$' must be followed by a digit, {N}, {name} or '$'")
            }
            if case .group(let number) = reference, number > (pattern?.captureCount ?? 0) {
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
            case .group(let number): result += match.map { $0[number] ?? "" } ?? (number == 0 ? url : "")
            case .named(let name): result += match?[name] ?? ""
            }
        }
        return result
    }
}
