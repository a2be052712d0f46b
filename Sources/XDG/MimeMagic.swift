/// The contents rules of the shared-mime-info database: each data
/// directory's `mime/magic`, in the binary form `update-mime-database`
/// writes (the Shared MIME-info Database specification, "The magic files").
///
/// Pure: built from the files' bytes, most important directory first, and
/// matched against a file's first bytes, which the caller reads (at most
/// `extent` of them). A malformed line is skipped and a truncated file ends
/// where it breaks: a broken database types nothing by contents, and never
/// aborts.
public struct MimeMagic: Sendable, Equatable {
    /// One rule: a value (under a mask) at an offset, or anywhere in a range
    /// of offsets; with nested rules, one of which must match too.
    public struct Match: Sendable, Equatable {
        /// The first offset to try.
        public let offset: Int
        /// How many offsets to try, from `offset` (at least 1).
        public let range: Int
        /// The bytes to find, already in this machine's order.
        public let value: [UInt8]
        /// Which bits of each byte count; `nil`: all.
        public let mask: [UInt8]?
        /// The nested rules: when there are any, one must match as well.
        public internal(set) var children: [Match]

        /// The last byte this rule (or a nested one) looks at, plus one.
        var extent: Int { max(offset + range - 1 + value.count, children.map(\.extent).max() ?? 0) }
    }

    /// One `[priority:type]` section: the type, and rules any of which types a file.
    public struct Section: Sendable, Equatable {
        /// Higher is tried first (0 to 100; 50 when the database left it out).
        public let priority: Int
        /// The MIME type the section gives.
        public let type: String
        /// Its top-level rules.
        public internal(set) var matches: [Match]
    }

    /// Every section of every directory, highest priority first; at equal
    /// priority, the more important directory's first, then in file order.
    public let sections: [Section]

    /// The most bytes any rule looks at: what a caller reads of a file
    /// (never more than `maximumExtent`).
    public let extent: Int

    /// `sections` as `match` walks them.
    let layout: Layout

    /// How many first bytes the text check looks at (the specification's 128).
    public static let textCheckLength = 128

    /// Offsets past this are never tested, and no more is ever read.
    public static let maximumExtent = 65536

    /// The first bytes of every magic file.
    static let header: [UInt8] = Array("MIME-Magic\0\n".utf8)

    /// - Parameter directories: per data directory, most important first,
    ///   the bytes of its `mime/magic` (`nil` when it has none). A section
    ///   whose rules say `__NOMAGIC__` drops that type's rules from the less
    ///   important directories (`magic-deleteall`).
    public init(directories: [[UInt8]?]) {
        var cleared = Set<String>()
        var all: [(section: Section, order: Int)] = []
        for bytes in directories {
            var clearedHere = Set<String>()
            for section in Self.sections(in: bytes ?? []) where !section.type.isEmpty && !cleared.contains(section.type) {
                if section.matches.first?.value == Self.noMagic {
                    clearedHere.insert(section.type)
                    // Rules may follow `__NOMAGIC__` in the same section; they stand.
                    var kept = section
                    kept.matches.removeFirst()
                    if !kept.matches.isEmpty { all.append((kept, all.count)) }
                    continue
                }
                all.append((section, all.count))
            }
            cleared.formUnion(clearedHere)
        }
        self.init(sections: all.sorted { ($0.section.priority, -$0.order) > ($1.section.priority, -$1.order) }.map(\.section))
    }

    private init(sections: [Section]) {
        self.sections = sections
        extent = min(sections.flatMap(\.matches).map(\.extent).max() ?? 0, Self.maximumExtent)
        layout = Layout(sections)
    }

    static let noMagic: [UInt8] = Array("__NOMAGIC__".utf8)

    /// The section that types `data` (a file's first bytes): the first of
    /// `sections` one of whose rules matches.
    public func match(_ data: [UInt8]) -> Section? {
        let index = data.withUnsafeBufferPointer { buffer in
            layout.firstSection(matching: UnsafeBufferPointer(rebasing: buffer.prefix(Self.maximumExtent)))
        }
        return index.map { sections[$0] }
    }

    /// The rules of `types` alone (with their own, smaller `extent`): what
    /// a check for those types needs to read and match.
    public func restricted(to types: Set<String>) -> MimeMagic {
        MimeMagic(sections: sections.filter { types.contains($0.type) })
    }

    /// Whether `data` reads as text: its first 128 bytes hold no ASCII
    /// control character but tab, line feed, vertical tab, form feed,
    /// carriage return, backspace and escape (man pages and terminal logs
    /// use the last two). Bytes with the high bit set count as text, as the
    /// specification says, since UTF-8 is made of them.
    public static func looksLikeText(_ data: [UInt8]) -> Bool {
        data.prefix(textCheckLength).allSatisfy { byte in byte >= 0x20 && byte != 0x7F || (0x08...0x0D).contains(byte) || byte == 0x1B }
    }

    // MARK: Reading the file

    /// The sections of one file, as written; what cannot be read is left out.
    static func sections(in bytes: [UInt8]) -> [Section] {
        guard bytes.starts(with: header) else { return [] }
        var reader = Reader(bytes: bytes, index: header.count)
        var sections: [Section] = []
        // The rules of the current section by indent: the last one at each depth, to nest under.
        var path: [[Int]] = []
        while reader.index < bytes.count {
            if bytes[reader.index] == UInt8(ascii: "[") {
                guard let (priority, type) = reader.sectionHeader() else { break }
                sections.append(Section(priority: priority, type: type, matches: []))
                path = []
                continue
            }
            guard !sections.isEmpty else { break }
            guard let line = reader.rule() else { break }
            guard let (indent, match) = line else { continue }  // a line for a future extension
            // The parent is the last rule one level up; without one the line is malformed.
            if indent == 0 {
                sections[sections.count - 1].matches.append(match)
                path = [[sections[sections.count - 1].matches.count - 1]]
            } else if indent <= path.count, indent > 0 {
                let parent = path[indent - 1]
                let childIndex = Self.append(match, under: parent, in: &sections[sections.count - 1].matches)
                path = Array(path.prefix(indent)) + [parent + [childIndex]]
            }
        }
        return sections
    }

    /// Appends `match` to the children of the rule at `position`; returns its index there.
    private static func append(_ match: Match, under position: [Int], in matches: inout [Match]) -> Int {
        if position.count == 1 {
            matches[position[0]].children.append(match)
            return matches[position[0]].children.count - 1
        }
        return append(match, under: Array(position.dropFirst()), in: &matches[position[0]].children)
    }

    private struct Reader {
        let bytes: [UInt8]
        var index: Int

        /// `[priority:type]\n`; `nil` when malformed.
        mutating func sectionHeader() -> (Int, String)? {
            guard let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")), end > index + 1, bytes[end - 1] == UInt8(ascii: "]") else {
                return nil
            }
            let text = String(decoding: bytes[(index + 1)..<(end - 1)], as: UTF8.self)
            index = end + 1
            let fields = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count >= 2, let priority = Int(fields[0]), (0...100).contains(priority), fields[1].contains("/") else {
                return (50, "")  // a section nothing can match: its rules are read and dropped
            }
            return (priority, String(fields[1]))
        }

        /// One rule line. `nil`: the file cannot be read past here;
        /// `.some(nil)`: a line to ignore (an unknown field).
        mutating func rule() -> (Int, Match)?? {
            let indent = number() ?? 0
            guard next(UInt8(ascii: ">")), let offset = number(), next(UInt8(ascii: "=")), index + 2 <= bytes.count else { return nil }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            index += 2
            guard index + length <= bytes.count else { return nil }
            var value = Array(bytes[index..<(index + length)])
            index += length
            var mask: [UInt8]?
            var wordSize = 1
            var range = 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
                switch bytes[index] {
                case UInt8(ascii: "&"):
                    index += 1
                    guard index + length <= bytes.count else { return nil }
                    mask = Array(bytes[index..<(index + length)])
                    index += length
                case UInt8(ascii: "~"):
                    index += 1
                    guard let size = number() else { return nil }
                    wordSize = size
                case UInt8(ascii: "+"):
                    index += 1
                    guard let count = number() else { return nil }
                    range = count
                default:
                    // Unknown: the whole line is ignored (no binary data follows the unknown character).
                    guard let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                    index = end + 1
                    return .some(nil)
                }
            }
            guard index < bytes.count else { return nil }
            index += 1
            // A rule past `maximumExtent` stays (its nested rules keep their
            // parent) but can never match: no more than that is ever read.
            range = max(range, 1)
            // Host-order values are stored big-endian: this machine reads them swapped.
            if wordSize == 2 || wordSize == 4, length % wordSize == 0, UInt16(1).littleEndian == 1 {
                value = Self.swapped(value, wordSize)
                mask = mask.map { Self.swapped($0, wordSize) }
            }
            return .some((indent, Match(offset: min(offset, MimeMagic.maximumExtent), range: min(range, MimeMagic.maximumExtent), value: value, mask: mask, children: [])))
        }

        static func swapped(_ bytes: [UInt8], _ size: Int) -> [UInt8] {
            stride(from: 0, to: bytes.count, by: size).flatMap { bytes[$0..<($0 + size)].reversed() }
        }

        mutating func next(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A decimal number of at most 9 digits; `nil` when there is none.
        mutating func number() -> Int? {
            var value = 0
            var digits = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                guard digits < 9 else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }
    }
}
