/// Runs a program over the input in one pass, all alternatives in lock
/// step (Pike's VM): time grows with input length × program size, never
/// exponentially, whatever the pattern. Leftmost match; among matches
/// starting there, the one a backtracking engine would find first.
struct PikeVM {
    private let program: Program
    private let slotCount: Int

    init(program: Program, captureCount: Int) {
        self.program = program
        self.slotCount = 2 * (captureCount + 1)
    }

    private struct Thread {
        let pc: Int
        let slots: [Int]
    }

    /// How a search ended: the capture slots of the first match (scalar
    /// offsets, -1 when unset), no match, or the step budget spent first.
    enum Outcome {
        case match([Int])
        case noMatch
        case tooCostly
    }

    /// Searches `input`, giving up after `budget` steps (a step: one thread
    /// visiting one instruction).
    func firstMatch(in input: [Unicode.Scalar], budget: Int) -> Outcome {
        var steps = 0
        var current: [Thread] = []
        var next: [Thread] = []
        var onList = SparseSet(capacity: program.instructions.count)
        var matched: [Int]?
        let unset = [Int](repeating: -1, count: slotCount)

        for position in 0...input.count {
            if matched == nil {
                // A new attempt starting here, after every older one in priority.
                add(Thread(pc: 0, slots: unset), at: position, input: input, to: &current, onList: &onList, steps: &steps)
            }
            if current.isEmpty && matched != nil { break }
            steps += current.count
            if steps > budget { return .tooCostly }
            onList.clear()
            next.removeAll(keepingCapacity: true)
            for thread in current {
                switch program.instructions[thread.pc] {
                case .consume(let set):
                    if position < input.count && program.sets[set].contains(input[position]) {
                        add(Thread(pc: thread.pc + 1, slots: thread.slots), at: position + 1, input: input, to: &next, onList: &onList, steps: &steps)
                    }
                case .match:
                    matched = thread.slots
                default:
                    continue
                }
                // Threads after a match have lower priority: drop them.
                if case .match = program.instructions[thread.pc] { break }
            }
            swap(&current, &next)
        }
        return matched.map(Outcome.match) ?? .noMatch
    }

    /// Follows jumps, splits, saves and assertions from `thread` in priority
    /// order, adding each thread that waits on input (or matches) once.
    private func add(
        _ thread: Thread, at position: Int, input: [Unicode.Scalar], to list: inout [Thread], onList: inout SparseSet, steps: inout Int
    ) {
        var stack = [thread]
        while let thread = stack.popLast() {
            steps += 1
            guard onList.insert(thread.pc) else { continue }
            switch program.instructions[thread.pc] {
            case .jump(let target):
                stack.append(Thread(pc: target, slots: thread.slots))
            case .split(let preferred, let other):
                stack.append(Thread(pc: other, slots: thread.slots))
                stack.append(Thread(pc: preferred, slots: thread.slots))
            case .save(let slot):
                var slots = thread.slots
                slots[slot] = position
                stack.append(Thread(pc: thread.pc + 1, slots: slots))
            case .assert(let assertion):
                if assertion.holds(at: position, in: input) { stack.append(Thread(pc: thread.pc + 1, slots: thread.slots)) }
            case .consume, .match:
                list.append(thread)
            }
        }
    }
}

/// A set of small integers with O(1) insert and clear (Briggs and Torczon).
struct SparseSet {
    private var dense: [Int]
    private var sparse: [Int]
    private var count = 0

    init(capacity: Int) {
        dense = [Int](repeating: 0, count: capacity)
        sparse = [Int](repeating: 0, count: capacity)
    }

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
