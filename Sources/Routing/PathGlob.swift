/// A glob over a URL path, anchored at both ends: `*` matches any run of
/// characters except `/`, `**` any run including `/`; everything else is literal.
///
///     try PathGlob("/*/issues/**").matches("/openurld/issues/4/comments")  // true
///
/// Matching tracks the set of reachable positions instead of backtracking, so
/// it costs at most (pattern tokens × path length) steps for any pattern.
public struct PathGlob: Hashable, Sendable, CustomStringConvertible {
    enum Token: Hashable, Sendable {
        case literal([UInt8])
        case star
        case doubleStar
    }

    public let description: String
    let tokens: [Token]

    /// Reads a glob: `*` within a segment, `**` across segments.
    /// - Throws: `RoutingError.invalidSpec` for an empty or overlong glob.
    public init(_ text: String) throws(RoutingError) {
        if text.isEmpty { throw RoutingError(.invalidSpec, "path pattern is empty") }
        if text.utf8.count > 1024 { throw RoutingError(.invalidSpec, "path pattern is longer than 1024 bytes") }
        var tokens: [Token] = []
        var literal: [UInt8] = []
        var bytes = text.utf8[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "*") else {
                literal.append(byte)
                continue
            }
            if !literal.isEmpty {
                tokens.append(.literal(literal))
                literal = []
            }
            // `*` alone is a star; two or more in a row (`**`, `***`) are a double star.
            var token = Token.star
            while bytes.first == UInt8(ascii: "*") {
                bytes.removeFirst()
                token = .doubleStar
            }
            tokens.append(token)
        }
        if !literal.isEmpty { tokens.append(.literal(literal)) }
        self.description = text
        self.tokens = tokens
    }

    /// Whether the whole of `path` matches.
    public func matches(_ path: some StringProtocol) -> Bool {
        let bytes = Array(path.utf8)
        var reachable = [Bool](repeating: false, count: bytes.count + 1)
        reachable[0] = true
        for token in tokens {
            var next = [Bool](repeating: false, count: bytes.count + 1)
            var any = false
            switch token {
            case .literal(let literal):
                for position in 0...bytes.count where reachable[position] {
                    let end = position + literal.count
                    if end <= bytes.count, bytes[position..<end].elementsEqual(literal) {
                        next[end] = true
                        any = true
                    }
                }
            case .star:
                var open = false
                for position in 0...bytes.count {
                    if reachable[position] { open = true }
                    if open {
                        next[position] = true
                        any = true
                    }
                    if position < bytes.count, bytes[position] == UInt8(ascii: "/") { open = false }
                }
            case .doubleStar:
                if let first = reachable.firstIndex(of: true) {
                    for position in first...bytes.count { next[position] = true }
                    any = true
                }
            }
            guard any else { return false }
            reachable = next
        }
        return reachable[bytes.count]
    }
}
