/// A parsed regular expression, before compiling.
indirect enum RegexNode: Sendable, Equatable {
    case empty
    case scalars(ScalarSet)
    case assertion(Assertion)
    /// A group; `capture` is its group number, `nil` for `(?:…)`.
    case group(RegexNode, capture: Int?)
    case sequence([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool)
}

/// A zero-width condition on the position between two scalars.
enum Assertion: Sendable, Equatable {
    case start, end, wordBoundary, notWordBoundary

    func holds(at position: Int, in input: [Unicode.Scalar]) -> Bool {
        switch self {
        case .start: position == 0
        case .end: position == input.count
        case .wordBoundary, .notWordBoundary:
            (isWord(input, position - 1) != isWord(input, position)) == (self == .wordBoundary)
        }
    }

    private func isWord(_ input: [Unicode.Scalar], _ index: Int) -> Bool {
        input.indices.contains(index) && ScalarSet.word.contains(input[index])
    }
}

/// Why a pattern was refused, and where.
public struct RegexSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The offset in Unicode scalars from the start of the pattern.
    public let offset: Int
    /// What is wrong there.
    public let reason: String
    public var description: String { "at offset \(offset): \(reason)" }
}

/// A recursive-descent parser for the supported syntax (see `LinearRegex`).
struct RegexParser {
    /// The largest count a `{n,m}` may give: programs grow with the counts.
    static let maximumRepeat = 1000

    private let pattern: [Unicode.Scalar]
    private var position = 0
    private var caseInsensitive = false
    private(set) var captureCount = 0
    private(set) var names: [String: Int] = [:]

    init(_ pattern: String) {
        self.pattern = Array(pattern.unicodeScalars)
    }

    mutating func parse() throws(RegexSyntaxError) -> RegexNode {
        if pattern.starts(with: "(?i)".unicodeScalars) {
            caseInsensitive = true
            position = 4
        }
        let node = try alternation()
        if position < pattern.count { throw error("unmatched ')'") }
        return node
    }

    private func error(_ reason: String, at offset: Int? = nil) -> RegexSyntaxError {
        RegexSyntaxError(offset: offset ?? position, reason: reason)
    }

    private var next: Unicode.Scalar? { position < pattern.count ? pattern[position] : nil }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard next == scalar else { return false }
        position += 1
        return true
    }

    private mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
        var branches = [try sequence()]
        while take("|") { branches.append(try sequence()) }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func sequence() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = next, scalar != "|", scalar != ")" {
            items.append(try quantified())
        }
        return items.isEmpty ? .empty : items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func quantified() throws(RegexSyntaxError) -> RegexNode {
        var node = try atom()
        while let scalar = next, "*+?{".unicodeScalars.contains(scalar) {
            let quantifierStart = position
            let (min, max) = try quantifier()
            if case .assertion = node { throw error("an anchor cannot be repeated", at: quantifierStart) }
            if case .repetition = node { throw error("a repetition cannot be repeated directly; use a group", at: quantifierStart) }
            let greedy = !take("?")
            if take("+") { throw error("possessive quantifiers are not supported", at: position - 1) }
            node = .repetition(node, min: min, max: max, greedy: greedy)
        }
        return node
    }

    private mutating func quantifier() throws(RegexSyntaxError) -> (Int, Int?) {
        let scalar = pattern[position]
        position += 1
        switch scalar {
        case "*": return (0, nil)
        case "+": return (1, nil)
        case "?": return (0, 1)
        default:
            let start = position - 1
            let min = try number()
            var max: Int? = min
            if take(",") { max = next == "}" ? nil : try number() }
            guard take("}") else { throw error("expected '}' to close the count", at: start) }
            guard let min else { throw error("a count needs a number: {n}, {n,} or {n,m}", at: start) }
            if let max, max < min { throw error("{\(min),\(max)}: the maximum is below the minimum", at: start) }
            if min > Self.maximumRepeat || (max ?? 0) > Self.maximumRepeat {
                throw error("counts above \(Self.maximumRepeat) are not supported", at: start)
            }
            return (min, max)
        }
    }

    private mutating func number() throws(RegexSyntaxError) -> Int? {
        var value: Int?
        while let scalar = next, ("0"..."9").contains(scalar) {
            value = (value ?? 0) * 10 + Int(scalar.value - 0x30)
            if value! > 100_000 { throw error("count is too large") }
            position += 1
        }
        return value
    }

    private mutating func atom() throws(RegexSyntaxError) -> RegexNode {
        let start = position
        let scalar = pattern[position]
        position += 1
        switch scalar {
        case ".": return .scalars(.any)
        case "^": return .assertion(.start)
        case "$": return .assertion(.end)
        case "[": return .scalars(try bracket(start: start))
        case "(": return try group(start: start)
        case "*", "+", "?", "{": throw error("'\(scalar)' has nothing to repeat", at: start)
        case "\\": return try escape()
        default: return .scalars(literal(scalar))
        }
    }

    private mutating func group(start: Int) throws(RegexSyntaxError) -> RegexNode {
        var capture: Int?
        if take("?") {
            let lookbehind = next == "<" && position + 1 < pattern.count && "=!".unicodeScalars.contains(pattern[position + 1])
            if take(":") {
                capture = nil
            } else if next == "=" || next == "!" || lookbehind {
                throw error("lookaround is not supported (it needs backtracking)", at: start)
            } else if take("<") || (take("P") && take("<")) {
                let nameStart = position
                var name = ""
                while let scalar = next, scalar != ">" {
                    guard scalar.isASCII, scalar.properties.isAlphabetic || scalar == "_"
                        || (!name.isEmpty && ("0"..."9").contains(scalar))
                    else { throw error("a group name may contain only letters, digits and '_'", at: position) }
                    name.unicodeScalars.append(scalar)
                    position += 1
                }
                guard take(">"), !name.isEmpty else { throw error("expected a group name and '>'", at: nameStart) }
                guard names[name] == nil else { throw error("the group name '\(name)' is used twice", at: nameStart) }
                captureCount += 1
                names[name] = captureCount
                capture = captureCount
            } else {
                throw error("unknown group syntax '(?'; use (?:…) or (?<name>…)", at: start)
            }
        } else {
            captureCount += 1
            capture = captureCount
        }
        let body = try alternation()
        guard take(")") else { throw error("unmatched '('", at: start) }
        return .group(body, capture: capture)
    }

    private mutating func escape() throws(RegexSyntaxError) -> RegexNode {
        guard let scalar = next else { throw error("the pattern ends with a lone '\\'", at: position - 1) }
        position += 1
        switch scalar {
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "A": return .assertion(.start)
        case "z": return .assertion(.end)
        case "1"..."9": throw error("backreferences are not supported (they need backtracking)", at: position - 2)
        default: return .scalars(try escapedSet(scalar, at: position - 2))
        }
    }

    /// `\d`, `\w`, `\s`, their negations, `\n`, `\t`, and escaped punctuation.
    private func escapedSet(_ scalar: Unicode.Scalar, at offset: Int) throws(RegexSyntaxError) -> ScalarSet {
        switch scalar {
        case "d": return .digit
        case "D": return ScalarSet.digit.inverted
        case "w": return .word
        case "W": return ScalarSet.word.inverted
        case "s": return .space
        case "S": return ScalarSet.space.inverted
        case "n": return ScalarSet(single: "\n")
        case "t": return ScalarSet(single: "\t")
        case "r": return ScalarSet(single: "\r")
        default:
            guard scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else {
                throw error("unknown escape '\\\(scalar)'", at: offset)
            }
            return ScalarSet(single: scalar)
        }
    }

    private func literal(_ scalar: Unicode.Scalar) -> ScalarSet {
        var set = ScalarSet(single: scalar)
        if caseInsensitive { set = set.caseFolded }
        return set
    }

    private mutating func bracket(start: Int) throws(RegexSyntaxError) -> ScalarSet {
        let negated = take("^")
        var set = ScalarSet()
        var first = true
        while true {
            guard let scalar = next else { throw error("unmatched '['", at: start) }
            if scalar == "]" && !first { position += 1; break }
            first = false
            position += 1
            var low = scalar
            if scalar == "\\" {
                guard let escaped = next else { throw error("unmatched '['", at: start) }
                position += 1
                let member = try escapedSet(escaped, at: position - 2)
                guard let single = member.single else { set.formUnion(member); continue }
                low = single
            }
            if next == "-", position + 1 < pattern.count, pattern[position + 1] != "]" {
                position += 1
                var high = pattern[position]
                position += 1
                if high == "\\" {
                    guard let escaped = next else { throw error("unmatched '['", at: start) }
                    position += 1
                    guard let single = try escapedSet(escaped, at: position - 2).single else {
                        throw error("a range cannot end in a class like \\d", at: position - 2)
                    }
                    high = single
                }
                guard low.value <= high.value else { throw error("range \(low)-\(high) is out of order", at: position - 3) }
                set.insert(low.value...high.value)
            } else {
                set.insert(low.value...low.value)
            }
        }
        if caseInsensitive { set = set.caseFolded }
        return negated ? set.inverted : set
    }
}
