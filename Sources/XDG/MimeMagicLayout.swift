extension MimeMagic {
    /// The rules of a `MimeMagic`'s sections laid out flat for matching:
    /// every rule's numbers in one array, every value and mask byte in
    /// another, a rule's nested rules next to each other.
    ///
    /// The gate matches every opened file's first bytes against the
    /// runnable types' rules, and typing by contents against all of them.
    /// Walking the `Match` tree copied each rule (three arrays to retain
    /// and release) and went through a closure per rule: about 128 000
    /// instructions to check a PDF against the runnable rules, a third of
    /// an `OpenURL` for a file. This walks the same rules in the same order
    /// over two buffers, with nothing counted or allocated.
    struct Layout: Sendable, Equatable {
        /// One rule.
        struct Rule: Sendable, Equatable {
            /// The first offset to try.
            var offset: Int
            /// The last offset to try.
            var last: Int
            /// Where the value starts in `bytes`, and its length.
            var value: Int
            var count: Int
            /// Where the mask starts in `bytes` (its length is the value's); -1: no mask.
            var mask: Int
            /// The nested rules.
            var children: Span
        }

        /// Rules `first..<first + count` of `rules`.
        struct Span: Sendable, Equatable {
            var first: Int
            var count: Int
        }

        private(set) var rules: [Rule] = []
        private(set) var bytes: [UInt8] = []
        /// Per section, in `sections`' order, its top-level rules.
        private(set) var sections: [Span] = []

        init(_ sections: [Section]) {
            self.sections = sections.map { place($0.matches) }
        }

        /// Lays out `matches` side by side, then each one's nested rules.
        private mutating func place(_ matches: [Match]) -> Span {
            let first = rules.count
            for match in matches {
                let value = bytes.count
                bytes += match.value
                var mask = -1
                if let bits = match.mask {
                    mask = bytes.count
                    bytes += bits
                }
                rules.append(Rule(offset: match.offset, last: match.offset + match.range - 1, value: value,
                                  count: match.value.count, mask: mask, children: Span(first: 0, count: 0)))
            }
            for (index, match) in matches.enumerated() where !match.children.isEmpty {
                rules[first + index].children = place(match.children)
            }
            return Span(first: first, count: matches.count)
        }

        /// The index of the first section one of whose rules matches `data`.
        func firstSection(matching data: UnsafeBufferPointer<UInt8>) -> Int? {
            rules.withUnsafeBufferPointer { rules in
                bytes.withUnsafeBufferPointer { bytes in
                    let matcher = Matcher(rules: rules, bytes: bytes, data: data)
                    return sections.firstIndex { matcher.any(of: $0) }
                }
            }
        }

        /// The walk itself, over the layout's buffers and the file's bytes.
        private struct Matcher {
            let rules: UnsafeBufferPointer<Rule>
            let bytes: UnsafeBufferPointer<UInt8>
            let data: UnsafeBufferPointer<UInt8>

            func any(of span: Span) -> Bool {
                var index = span.first
                let end = index + span.count
                while index < end {
                    if matches(rules[index]) { return true }
                    index += 1
                }
                return false
            }

            /// The rule's value is found, and one of its nested rules matches when it has any.
            func matches(_ rule: Rule) -> Bool {
                found(rule) && (rule.children.count == 0 || any(of: rule.children))
            }

            private func found(_ rule: Rule) -> Bool {
                let count = rule.count
                let last = min(rule.last, data.count - count)
                var start = rule.offset
                guard count > 0, start <= last else { return false }
                let value = bytes.baseAddress! + rule.value
                if rule.mask < 0 {
                    // The first byte decides most offsets; the rest is compared where it matches.
                    let head = value[0]
                    while start <= last {
                        if data[start] == head, equal(at: start, from: 1, value, count) { return true }
                        start += 1
                    }
                    return false
                }
                let mask = bytes.baseAddress! + rule.mask
                while start <= last {
                    if masked(at: start, value, mask, count) { return true }
                    start += 1
                }
                return false
            }

            private func equal(at start: Int, from index: Int, _ value: UnsafePointer<UInt8>, _ count: Int) -> Bool {
                var index = index
                while index < count {
                    if data[start + index] != value[index] { return false }
                    index += 1
                }
                return true
            }

            private func masked(at start: Int, _ value: UnsafePointer<UInt8>, _ mask: UnsafePointer<UInt8>, _ count: Int) -> Bool {
                var index = 0
                while index < count {
                    if data[start + index] & mask[index] != value[index] & mask[index] { return false }
                    index += 1
                }
                return true
            }
        }
    }
}
