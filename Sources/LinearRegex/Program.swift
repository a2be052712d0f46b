/// One instruction of a compiled pattern (Thompson's construction).
enum Instruction: Sendable {
    /// Consume one scalar in `sets[index]`.
    case consume(Int)
    /// Try `preferred` first, then `other`.
    case split(preferred: Int, other: Int)
    case jump(Int)
    /// Record the position in capture slot `slot`.
    case save(Int)
    case assert(Assertion)
    case match
}

/// A compiled pattern: instructions, and the scalar sets they consume.
struct Program: Sendable {
    /// Programs grow with nested counts (`(a{1000}){1000}`); past this they are refused.
    static let maximumSize = 50_000

    private(set) var instructions: [Instruction] = []
    private(set) var sets: [ScalarSet] = []

    /// Compiles `node` as `save 0, node, save 1, match`.
    init(_ node: RegexNode) throws(RegexSyntaxError) {
        try emit(.save(0))
        try compile(node)
        try emit(.save(1))
        try emit(.match)
    }

    @discardableResult
    private mutating func emit(_ instruction: Instruction) throws(RegexSyntaxError) -> Int {
        guard instructions.count < Self.maximumSize else {
            throw RegexSyntaxError(offset: 0, reason: "the pattern is too large once its counts are expanded")
        }
        instructions.append(instruction)
        return instructions.count - 1
    }

    private mutating func compile(_ node: RegexNode) throws(RegexSyntaxError) {
        switch node {
        case .empty:
            break
        case .scalars(let set):
            sets.append(set)
            try emit(.consume(sets.count - 1))
        case .assertion(let assertion):
            try emit(.assert(assertion))
        case .group(let body, let capture):
            if let capture { try emit(.save(2 * capture)) }
            try compile(body)
            if let capture { try emit(.save(2 * capture + 1)) }
        case .sequence(let items):
            for item in items { try compile(item) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index == branches.count - 1 {
                    try compile(branch)
                } else {
                    let split = try emit(.split(preferred: 0, other: 0))
                    try compile(branch)
                    jumps.append(try emit(.jump(0)))
                    instructions[split] = .split(preferred: split + 1, other: instructions.count)
                }
            }
            for jump in jumps { instructions[jump] = .jump(instructions.count) }
        case .repetition(let body, let min, let max, let greedy):
            for _ in 0..<min { try compile(body) }
            if let max {
                // Each optional copy may be skipped to the end: x? x? … nested.
                var exits: [Int] = []
                for _ in min..<max {
                    exits.append(try emit(.split(preferred: 0, other: 0)))
                    try compile(body)
                }
                for exit in exits { instructions[exit] = branch(from: exit, greedy: greedy, skipTo: instructions.count) }
            } else {
                let loop = try emit(.split(preferred: 0, other: 0))
                try compile(body)
                try emit(.jump(loop))
                instructions[loop] = branch(from: loop, greedy: greedy, skipTo: instructions.count)
            }
        }
    }

    private func branch(from index: Int, greedy: Bool, skipTo end: Int) -> Instruction {
        greedy ? .split(preferred: index + 1, other: end) : .split(preferred: end, other: index + 1)
    }
}
