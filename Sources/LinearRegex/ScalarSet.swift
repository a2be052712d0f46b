/// A set of Unicode scalars as sorted, disjoint ranges of scalar values.
struct ScalarSet: Sendable, Equatable {
    private(set) var ranges: [ClosedRange<UInt32>] = []

    init() {}

    init(single scalar: Unicode.Scalar) {
        ranges = [scalar.value...scalar.value]
    }

    init(_ ranges: [ClosedRange<UInt32>]) {
        for range in ranges { insert(range) }
    }

    static let any = ScalarSet([0...0x10FFFF])
    static let digit = ScalarSet([0x30...0x39])
    static let word = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    static let space = ScalarSet([0x09...0x0D, 0x20...0x20])

    /// The one scalar in the set, if it holds exactly one.
    var single: Unicode.Scalar? {
        guard ranges.count == 1, ranges[0].lowerBound == ranges[0].upperBound else { return nil }
        return Unicode.Scalar(ranges[0].lowerBound)
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(value)
    }

    mutating func insert(_ range: ClosedRange<UInt32>) {
        var merged = range
        var result: [ClosedRange<UInt32>] = []
        for existing in ranges {
            if existing.upperBound + 1 < merged.lowerBound || merged.upperBound + 1 < existing.lowerBound {
                result.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)...max(existing.upperBound, merged.upperBound)
            }
        }
        result.append(merged)
        ranges = result.sorted { $0.lowerBound < $1.lowerBound }
    }

    mutating func formUnion(_ other: ScalarSet) {
        for range in other.ranges { insert(range) }
    }

    /// Every scalar not in this set (surrogate values, which are not scalars, included harmlessly).
    var inverted: ScalarSet {
        var result = ScalarSet()
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.ranges.append(next...(range.lowerBound - 1)) }
            next = range.upperBound + 1
        }
        if next <= 0x10FFFF { result.ranges.append(next...0x10FFFF) }
        return result
    }

    /// The set with both cases of every ASCII letter (only ASCII letters are folded).
    var caseFolded: ScalarSet {
        var result = self
        for (from, to) in [(UInt32(0x41), UInt32(0x5A)), (UInt32(0x61), UInt32(0x7A))] {
            for range in ranges {
                let low = max(range.lowerBound, from)
                let high = min(range.upperBound, to)
                guard low <= high else { continue }
                let shift: Int64 = from == 0x41 ? 32 : -32
                result.insert(UInt32(Int64(low) + shift)...UInt32(Int64(high) + shift))
            }
        }
        return result
    }
}
