/// A file in the "keyfile" syntax shared by desktop entries, `mimeapps.list`
/// and systemd units: `[Group]` headers, `Key=Value` lines, `#` comments.
///
/// Pure: parses text, never reads files. Keeps line numbers for messages.
public struct KeyFile: Sendable, Equatable {
    /// One `[Group]` and its entries, in file order.
    public struct Group: Sendable, Equatable {
        /// The group's name, between the brackets.
        public let name: String
        /// The line its header is on.
        public let line: Int
        /// Its entries, in file order.
        public var entries: [Entry]

        /// The raw value of the last `key` in the group (later lines win, as in GLib).
        public func value(_ key: String) -> String? { entries.last(where: { $0.key == key })?.value }
    }

    /// One `Key=Value` line.
    public struct Entry: Sendable, Equatable {
        /// The key, with any `[locale]` suffix.
        public let key: String
        /// The raw value, escapes not yet removed.
        public let value: String
        /// The line it is on.
        public let line: Int
    }

    /// A line that could not be parsed.
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The line, from 1.
        public let line: Int
        /// What is wrong with it.
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// The groups, in file order.
    public let groups: [Group]

    /// Parses `text`.
    /// - Throws: `ParseError` for a malformed group header, an entry before any
    ///   group, or a line that is neither.
    public init(parsing text: String) throws(ParseError) {
        var firstProblem: ParseError?
        self.init(text) { problem in
            if firstProblem == nil { firstProblem = problem }
        }
        if let firstProblem { throw firstProblem }
    }

    /// Parses `text`, skipping the lines it cannot read and reporting each
    /// of them, so that a caller can keep what is valid (rule files do).
    public static func parsingLeniently(_ text: String) -> (KeyFile, problems: [ParseError]) {
        var problems: [ParseError] = []
        let file = KeyFile(text) { problems.append($0) }
        return (file, problems)
    }

    private init(_ text: String, report: (ParseError) -> Void) {
        var groups: [Group] = []
        var lineNumber = 0
        // "\r\n" is one Character in Swift: split on both, or CRLF files are one line.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]"), trimmed.count >= 3 else {
                    report(ParseError(line: lineNumber, reason: "a group header must look like [Name]"))
                    continue
                }
                let name = trimmed.dropFirst().dropLast()
                guard !name.contains(where: { $0 == "[" || $0 == "]" || $0.asciiValue.map { $0 < 0x20 } == true }) else {
                    report(ParseError(line: lineNumber, reason: "a group name may not contain '[', ']' or control characters"))
                    continue
                }
                groups.append(Group(name: String(name), line: lineNumber, entries: []))
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                report(ParseError(line: lineNumber, reason: "expected Key=Value, a [Group] or a # comment"))
                continue
            }
            guard !groups.isEmpty else {
                report(ParseError(line: lineNumber, reason: "an entry must follow a [Group] header"))
                continue
            }
            let key = trimmed[..<equals].trimmingTrailingSpaces()
            guard !key.isEmpty else {
                report(ParseError(line: lineNumber, reason: "an entry has an empty key"))
                continue
            }
            let value = trimmed[trimmed.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            groups[groups.count - 1].entries.append(Entry(key: String(key), value: String(value), line: lineNumber))
        }
        self.groups = groups
    }

    /// The first group named `name`.
    public func group(_ name: String) -> Group? { groups.first { $0.name == name } }
}

extension KeyFile {
    /// Unescapes a `string` value: `\s` space, `\n`, `\t`, `\r`, `\\`.
    /// An unknown escape is kept as written, as GLib does.
    public static func unescape(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var result = ""
        var iterator = value.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "s"?: result.append(" ")
            case "n"?: result.append("\n")
            case "t"?: result.append("\t")
            case "r"?: result.append("\r")
            case "\\"?: result.append("\\")
            case let other?: result.append("\\"); result.append(other)
            case nil: result.append("\\")
            }
        }
        return result
    }

    /// Splits a `;`-separated list (`\;` is a literal semicolon); empty items are dropped.
    public static func list(_ value: String) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped {
                current.append(character == ";" ? ";" : "\\")
                if character != ";" { current.append(character) }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ";" {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        items.append(current)
        return items.map { unescape($0) }.filter { !$0.isEmpty }
    }

    /// Writes `items` as a `;`-terminated list that `list(_:)` reads back
    /// exactly: `\\`, `;`, newlines, tabs, carriage returns and a leading space
    /// are escaped.
    public static func listValue(_ items: [String]) -> String {
        items.map { escaped($0, semicolons: true) + ";" }.joined()
    }

    /// Writes a `string` value that `unescape(_:)` reads back exactly.
    public static func stringValue(_ text: String) -> String {
        escaped(text, semicolons: false)
    }

    private static func escaped(_ item: String, semicolons: Bool) -> String {
        var escaped = ""
        for (index, character) in item.enumerated() {
            switch character {
            case "\\": escaped += "\\\\"
            case ";" where semicolons: escaped += "\\;"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case "\r\n": escaped += "\\r\\n"
            case " " where index == 0: escaped += "\\s"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Reads a `boolean` value (`true` or `false`; GLib also accepts 1 and 0).
    public static func boolean(_ value: String?) -> Bool? {
        switch value {
        case "true"?, "1"?: true
        case "false"?, "0"?: false
        default: nil
        }
    }
}

extension Substring {
    fileprivate func trimmingTrailingSpaces() -> Substring {
        var result = self
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
