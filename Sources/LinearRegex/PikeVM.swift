/// Runs a program over the input in one pass, all alternatives in lock
/// step (Pike's VM): time grows with input length × program size, never
/// exponentially, whatever the pattern. Leftmost match; among matches
/// starting there, the one a backtracking engine would find first.
///
/// Nothing is allocated per step: each list of threads keeps one row of
/// capture slots per instruction, and following saves uses one scratch row
/// plus a stack of values to restore.
struct PikeVM {
    private let program: Program
    private let slotCount: Int

    init(program: Program, captureCount: Int) {
        self.program = program
        self.slotCount = 2 * (captureCount + 1)
    }

    /// How a search ended: the capture slots of the first match (scalar
    /// offsets, -1 when unset), no match, or the step budget spent first.
    enum Outcome {
        case match([Int])
        case noMatch
        case tooCostly
    }

    /// The threads waiting at one position, in priority order, with their slots.
    private struct ThreadList {
        var pcs: SparseSet
        var slots: [Int]

        init(capacity: Int, slotCount: Int) {
            pcs = SparseSet(capacity: capacity)
            slots = [Int](repeating: -1, count: capacity * slotCount)
        }
    }

    private enum Frame {
        case explore(Int)
        case restore(slot: Int, value: Int)
    }

    /// Searches `input`, giving up after `budget` steps (a step: one thread
    /// visiting one instruction).
    func firstMatch(in input: [Unicode.Scalar], budget: Int) -> Outcome {
        let size = program.instructions.count
        var current = ThreadList(capacity: size, slotCount: slotCount)
        var next = ThreadList(capacity: size, slotCount: slotCount)
        var scratch = [Int](repeating: -1, count: slotCount)
        var stack: [Frame] = []
        var steps = 0
        var matched: [Int]?

        for position in 0...input.count {
            if matched == nil {
                // A new attempt starting here, after every older one in priority.
                for slot in scratch.indices { scratch[slot] = -1 }
                add(0, at: position, input: input, to: &current, scratch: &scratch, stack: &stack, steps: &steps)
            }
            if current.pcs.count == 0 && matched != nil { break }
            steps += current.pcs.count
            if steps > budget { return .tooCostly }
            next.pcs.clear()
            threads: for index in 0..<current.pcs.count {
                let pc = current.pcs[index]
                let row = pc * slotCount
                switch program.instructions[pc] {
                case .consume(let set):
                    guard position < input.count, program.sets[set].contains(input[position]) else { continue }
                    for slot in 0..<slotCount { scratch[slot] = current.slots[row + slot] }
                    add(pc + 1, at: position + 1, input: input, to: &next, scratch: &scratch, stack: &stack, steps: &steps)
                case .match:
                    matched = Array(current.slots[row..<(row + slotCount)])
                    // Threads after a match have lower priority: drop them.
                    break threads
                default:
                    continue
                }
            }
            swap(&current, &next)
        }
        return matched.map(Outcome.match) ?? .noMatch
    }

    /// Follows jumps, splits, saves and assertions from `start` in priority
    /// order, adding each thread that waits on input (or matches) once, with
    /// the slots in `scratch` as they are on its path.
    private func add(
        _ start: Int, at position: Int, input: [Unicode.Scalar], to list: inout ThreadList, scratch: inout [Int],
        stack: inout [Frame], steps: inout Int
    ) {
        stack.append(.explore(start))
        while let frame = stack.popLast() {
            switch frame {
            case .restore(let slot, let value):
                scratch[slot] = value
            case .explore(let pc):
                steps += 1
                guard list.pcs.insert(pc) else { continue }
                switch program.instructions[pc] {
                case .jump(let target):
                    stack.append(.explore(target))
                case .split(let preferred, let other):
                    stack.append(.explore(other))
                    stack.append(.explore(preferred))
                case .save(let slot):
                    // Restored once everything reachable from here is added.
                    stack.append(.restore(slot: slot, value: scratch[slot]))
                    scratch[slot] = position
                    stack.append(.explore(pc + 1))
                case .assert(let assertion):
                    if assertion.holds(at: position, in: input) { stack.append(.explore(pc + 1)) }
                case .consume, .match:
                    let row = pc * slotCount
                    for slot in 0..<slotCount { list.slots[row + slot] = scratch[slot] }
                }
            }
        }
    }
}

/// A set of small integers with O(1) insert and clear (Briggs and Torczon),
/// remembering the order of insertion.
struct SparseSet {
    private var dense: [Int]
    private var sparse: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        dense = [Int](repeating: 0, count: capacity)
        sparse = [Int](repeating: 0, count: capacity)
    }

    /// The `index`-th value inserted since the last `clear`.
    subscript(index: Int) -> Int { dense[index] }

    /// Inserts `value`; `false` if it was already there.
    mutating func insert(_ value: Int) -> Bool {
        let index = sparse[value]
        if index < count && dense[index] == value { return false }
        sparse[value] = count
        dense[count] = value
        count += 1
        return true
    }

    mutating func clear() { count = 0 }
}
