/// A regular expression matched in linear time.
///
/// Matching runs every alternative in lock step (see `PikeVM`), so a pattern
/// like `(a+)+$` against a long URL costs what any other pattern of its size
/// costs, never the exponential time a backtracking engine can take. The
/// price is the features that need backtracking: backreferences and
/// lookaround are refused with a clear error.
///
/// Syntax (a subset of PCRE and POSIX ERE, over Unicode scalars):
/// literals and `\`-escaped punctuation; `.` (any scalar); `[abc]`, `[^a-z]`;
/// `\d \w \s` and `\D \W \S` (ASCII classes); `\n \t \r`; anchors `^ $ \A \z`
/// and `\b \B`; groups `(…)`, `(?:…)`, `(?<name>…)` or `(?P<name>…)`;
/// `|`; `* + ? {n} {n,} {n,m}` (n, m ≤ 1000), each lazy with a trailing
/// `?`; and a leading `(?i)` for ASCII case-insensitive matching.
public struct LinearRegex: Sendable {
    /// The pattern as written.
    public let pattern: String
    /// The number of capture groups, not counting group 0 (the whole match).
    public let captureCount: Int
    /// Named groups and their numbers.
    public let groupNames: [String: Int]
    private let program: Program

    /// The longest pattern accepted, in Unicode scalars.
    public static let maximumPatternLength = 4096

    /// The most steps one search may take (a step: one alternative visiting
    /// one instruction). Linear time still grows with the pattern: a pattern
    /// of thousands of instructions against a 32 KiB URL would take seconds.
    /// Ten million steps took about 70 ms here (release build); ordinary
    /// patterns on ordinary URLs take a few thousand.
    public static let stepBudget = 10_000_000

    /// How a search ended.
    public enum Search: Sendable, Equatable {
        case match(RegexMatch)
        case noMatch
        /// The search would have taken more than `stepBudget` steps and was abandoned.
        case tooCostly
    }

    /// Parses and compiles `pattern`.
    /// - Throws: `RegexSyntaxError` with the offset and the reason.
    public init(_ pattern: String) throws(RegexSyntaxError) {
        guard pattern.unicodeScalars.count <= Self.maximumPatternLength else {
            throw RegexSyntaxError(offset: Self.maximumPatternLength, reason: "the pattern is longer than \(Self.maximumPatternLength) characters")
        }
        var parser = RegexParser(pattern)
        let node = try parser.parse()
        self.pattern = pattern
        self.captureCount = parser.captureCount
        self.groupNames = parser.names
        self.program = try Program(node)
    }

    /// Searches `text` for the leftmost match, within `budget` steps.
    public func search(_ text: String, budget: Int = LinearRegex.stepBudget) -> Search {
        let input = Array(text.unicodeScalars)
        switch PikeVM(program: program, captureCount: captureCount).firstMatch(in: input, budget: budget) {
        case .match(let slots): return .match(RegexMatch(input: input, slots: slots, names: groupNames))
        case .noMatch: return .noMatch
        case .tooCostly: return .tooCostly
        }
    }

    /// The leftmost match in `text`; `nil` when there is none, or finding
    /// out would take more than `stepBudget` steps.
    public func firstMatch(in text: String) -> RegexMatch? {
        if case .match(let match) = search(text) { return match }
        return nil
    }

    /// Whether the pattern matches anywhere in `text` (within `stepBudget` steps).
    public func matches(_ text: String) -> Bool { firstMatch(in: text) != nil }
}

/// A match: the whole matched text (group 0) and each capture group.
public struct RegexMatch: Sendable, Equatable {
    private let input: [Unicode.Scalar]
    private let slots: [Int]
    private let names: [String: Int]

    init(input: [Unicode.Scalar], slots: [Int], names: [String: Int]) {
        self.input = input
        self.slots = slots
        self.names = names
    }

    /// The text of group `number` (0: the whole match); `nil` when the group
    /// did not take part in the match or does not exist.
    public subscript(number: Int) -> String? {
        guard number >= 0, 2 * number + 1 < slots.count else { return nil }
        let start = slots[2 * number]
        let end = slots[2 * number + 1]
        guard start >= 0, end >= start else { return nil }
        var text = ""
        text.unicodeScalars.append(contentsOf: input[start..<end])
        return text
    }

    /// The text of the group called `name`.
    public subscript(name: String) -> String? {
        names[name].flatMap { self[$0] }
    }

    /// The range of the whole match, in Unicode scalars from the start of the text.
    public var range: Range<Int> { slots[0]..<slots[1] }
}
