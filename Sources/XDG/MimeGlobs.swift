/// What the shared-mime-info database says about file names and type
/// relations, read from each data directory's `mime/globs2`, `mime/aliases`
/// and `mime/subclasses` (the Shared MIME-info Database specification).
///
/// Pure: built from file texts, most important directory first. What the
/// contents say is `MimeMagic`'s; `FileTyping` decides between the two.
public struct MimeGlobs: Sendable, Equatable {
    /// One `weight:type:pattern[:flags]` line.
    public struct Glob: Sendable, Equatable {
        /// Among matching patterns of the same kind, the highest weight wins.
        public let weight: Int
        /// The MIME type it gives.
        public let type: String
        /// The glob (`*.pdf`), or a literal name (`Makefile`).
        public let pattern: String
        /// The `cs` flag: the name's case must match.
        public let caseSensitive: Bool
    }

    public private(set) var globs: [Glob] = []
    /// The globs by kind, for lookups that do not scan all of them.
    private var index = Index()

    /// Literal names and simple suffixes (`*.pdf`, `*.tar.gz`, `*~`) by their
    /// text, lowercased for case-insensitive globs; other patterns listed.
    /// Positions are into `globs`, whose order breaks ties.
    private struct Index: Equatable, Sendable {
        var literal: [String: [Int]] = [:]
        var literalExact: [String: [Int]] = [:]
        var suffix: [String: [Int]] = [:]
        var suffixExact: [String: [Int]] = [:]
        var others: [(position: Int, pattern: String)] = []
        var longestSuffix = 0

        static func == (a: Index, b: Index) -> Bool {
            a.literal == b.literal && a.literalExact == b.literalExact && a.suffix == b.suffix && a.suffixExact == b.suffixExact
                && a.others.map(\.position) == b.others.map(\.position)
        }
    }
    /// Alias → canonical type.
    public private(set) var aliases: [String: String] = [:]
    /// Type → its declared parents, in file order.
    public private(set) var parents: [String: [String]] = [:]

    /// - Parameter directories: per data directory, most important first, the
    ///   texts of its `globs2`, `aliases` and `subclasses` files (`nil` when missing).
    public init(directories: [(globs2: String?, aliases: String?, subclasses: String?)]) {
        var cleared = Set<String>()
        // update-mime-database writes each case-sensitive glob twice, with
        // `:cs` and again without it for readers that know no flags; the
        // first line of a pattern for a type is the one that counts, as in
        // GLib's reader, or `*.C` (C++) would also take every `*.c` file.
        var seen = Set<String>()
        for directory in directories {
            // Globs of all directories add up, except that __NOGLOBS__ in a
            // more important directory drops a type's globs from less important ones.
            var clearedHere = Set<String>()
            for line in Self.lines(directory.globs2) {
                let fields = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
                guard fields.count >= 3, let weight = Int(fields[0]), !fields[1].isEmpty, !fields[2].isEmpty else { continue }
                let type = String(fields[1])
                guard !cleared.contains(type) else { continue }
                if fields[2] == "__NOGLOBS__" {
                    clearedHere.insert(type)
                    continue
                }
                let flags = fields.count > 3 ? fields[3].split(separator: ",") : []
                guard seen.insert(type + "\u{0}" + fields[2]).inserted else { continue }
                globs.append(Glob(weight: weight, type: type, pattern: String(fields[2]), caseSensitive: flags.contains("cs")))
            }
            cleared.formUnion(clearedHere)
            for line in Self.lines(directory.aliases) {
                let pair = line.split(separator: " ")
                if pair.count == 2, aliases[String(pair[0])] == nil { aliases[String(pair[0])] = String(pair[1]) }
            }
            for line in Self.lines(directory.subclasses) {
                let pair = line.split(separator: " ")
                guard pair.count == 2 else { continue }
                let (child, parent) = (String(pair[0]), String(pair[1]))
                if !(parents[child]?.contains(parent) ?? false) { parents[child, default: []].append(parent) }
            }
        }
        buildIndex()
    }

    private mutating func buildIndex() {
        for (position, glob) in globs.enumerated() {
            if !Self.hasWildcards(glob.pattern) {
                if glob.caseSensitive { index.literalExact[glob.pattern, default: []].append(position) }
                else { index.literal[glob.pattern.lowercased(), default: []].append(position) }
            } else if Self.isSimpleSuffix(glob.pattern) {
                let suffix = String(glob.pattern.dropFirst())
                index.longestSuffix = max(index.longestSuffix, suffix.count)
                if glob.caseSensitive { index.suffixExact[suffix, default: []].append(position) }
                else { index.suffix[suffix.lowercased(), default: []].append(position) }
            } else {
                index.others.append((position, glob.caseSensitive ? glob.pattern : glob.pattern.lowercased()))
            }
        }
    }

    private static func lines(_ text: String?) -> [Substring] {
        (text ?? "").split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    /// The type of a file called `name` (the last path component), by the
    /// specification's order: literal names, then the longest matching
    /// `*.suffix`, then other patterns; within each, the highest weight.
    /// - Returns: `nil` when no glob matches.
    public func type(ofFileNamed name: String) -> String? {
        bestMatches(ofFileNamed: name).first.map { canonical($0.type) }
    }

    /// The globs that decide for a file called `name`, by the order of
    /// `type(ofFileNamed:)`: the best one first, then any that tie with it
    /// (the same kind, weight and length). When they give more than one
    /// type, the name alone does not decide (`*.ts`: an MPEG transport
    /// stream or a Qt translation) and the contents must.
    public func bestMatches(ofFileNamed name: String) -> [Glob] {
        let lowered = name.lowercased()
        func best(_ positions: [Int], _ rank: (Glob) -> [Int]) -> [Glob] {
            let candidates = positions.sorted().map { globs[$0] }
            guard let top = candidates.max(by: { rank($0).lexicographicallyPrecedes(rank($1)) }) else { return [] }
            return [top] + candidates.filter { $0 != top && rank($0) == rank(top) }
        }
        let literal = best((index.literal[lowered] ?? []) + (index.literalExact[name] ?? [])) { [$0.weight] }
        if !literal.isEmpty { return literal }
        var suffixes: [Int] = []
        for length in stride(from: min(index.longestSuffix, lowered.count), through: 1, by: -1) {
            suffixes += index.suffix[String(lowered.suffix(length))] ?? []
        }
        for length in stride(from: min(index.longestSuffix, name.count), through: 1, by: -1) {
            suffixes += index.suffixExact[String(name.suffix(length))] ?? []
        }
        let bySuffix = best(suffixes) { [$0.pattern.count, $0.weight] }
        if !bySuffix.isEmpty { return bySuffix }
        let others = index.others.filter { Self.fnmatch($0.pattern, globs[$0.position].caseSensitive ? name : lowered) }.map(\.position)
        return best(others) { [$0.weight, $0.pattern.count] }
    }

    /// The canonical name of `type` (aliases resolved).
    public func canonical(_ type: String) -> String { aliases[type] ?? type }

    /// `type` and then its ancestors, nearest first: declared parents, then
    /// `text/plain` for `text/*`. (The implicit `application/octet-stream`
    /// parent of every type is left out: its default application, a hex
    /// editor perhaps, is no way to open a document.)
    public func lineage(of type: String) -> [String] {
        var result = [canonical(type)]
        var index = 0
        while index < result.count {
            let current = result[index]
            var next = parents[current] ?? []
            if current.hasPrefix("text/"), current != "text/plain" { next.append("text/plain") }
            for parent in next.map(canonical) where !result.contains(parent) { result.append(parent) }
            index += 1
        }
        return result
    }

    private static func hasWildcards(_ pattern: String) -> Bool { pattern.contains { "*?[".contains($0) } }

    private static func isSimpleSuffix(_ pattern: String) -> Bool {
        pattern.hasPrefix("*") && !hasWildcards(String(pattern.dropFirst()))
    }

    /// `fnmatch` without flags: `*`, `?` and `[…]` (with `!` and ranges).
    static func fnmatch(_ pattern: String, _ name: String) -> Bool {
        let p = Array(pattern.unicodeScalars), n = Array(name.unicodeScalars)
        func match(_ i: Int, _ j: Int) -> Bool {
            var (i, j) = (i, j)
            while i < p.count {
                switch p[i] {
                case "*":
                    while i < p.count, p[i] == "*" { i += 1 }
                    if i == p.count { return true }
                    for k in j...n.count where match(i, k) { return true }
                    return false
                case "?":
                    guard j < n.count else { return false }
                case "[":
                    guard j < n.count, let (matched, end) = bracket(i, n[j]) else { return false }
                    guard matched else { return false }
                    i = end
                    j += 1
                    continue
                default:
                    guard j < n.count, p[i] == n[j] else { return false }
                }
                i += 1
                j += 1
            }
            return j == n.count
        }
        /// Whether `c` is in the bracket expression at `start`, and the index after it.
        func bracket(_ start: Int, _ c: Unicode.Scalar) -> (Bool, Int)? {
            var i = start + 1
            let negated = i < p.count && (p[i] == "!" || p[i] == "^")
            if negated { i += 1 }
            var found = false
            var first = true
            while i < p.count, p[i] != "]" || first {
                first = false
                if i + 2 < p.count, p[i + 1] == "-", p[i + 2] != "]" {
                    if p[i].value <= c.value, c.value <= p[i + 2].value { found = true }
                    i += 3
                } else {
                    if p[i] == c { found = true }
                    i += 1
                }
            }
            guard i < p.count else { return nil }
            return (found != negated, i + 1)
        }
        return match(0, 0)
    }
}
