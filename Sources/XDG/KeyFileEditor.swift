/// Edits keys of a keyfile text (`mimeapps.list`, `kdeglobals`, openurld's
/// own state), changing only the lines it must and keeping every other byte:
/// comments, other groups and keys, order, blank lines, line endings.
/// (Tools that rewrote such files from a parse lost users' comments and entries.)
public struct KeyFileEditor: Sendable {
    public private(set) var text: String

    /// - Throws: `KeyFile.ParseError` when the text is not a keyfile: a file we
    ///   cannot parse is never touched.
    public init(_ text: String) throws(KeyFile.ParseError) {
        _ = try KeyFile(parsing: text)
        self.text = text
    }

    /// The raw (still escaped) value of `key` in `group`: its last line, the one that counts.
    public func value(_ key: String, in group: String) -> String? {
        findLine(key, in: group).map { String(text[$0.value]) }
    }

    /// Sets `key` in `group` to the raw `value`, replacing its last line or
    /// adding one after the group's last entry (and the group at the end
    /// when there is none); `nil` removes the line.
    public mutating func set(_ key: String, in group: String, to value: String?) {
        if let line = findLine(key, in: group) {
            if let value { text.replaceSubrange(line.value, with: value) } else { text.removeSubrange(line.whole) }
            return
        }
        guard let value else { return }
        let newLine = key + "=" + value
        let newline = text.contains("\r\n") ? "\r\n" : "\n"
        if let end = groupEnd(group) {
            if end == text.endIndex, !text.hasSuffix("\n") {
                text += newline + newLine + newline  // the file ended without a line break
            } else {
                text.insert(contentsOf: newLine + newline, at: end)
            }
        } else {
            if !text.isEmpty && !text.hasSuffix("\n") { text += newline }
            if !text.isEmpty { text += newline }
            text += "[" + group + "]" + newline + newLine + newline
        }
    }

    private struct Line {
        let whole: Range<String.Index>  // including its line break
        let value: Range<String.Index>
    }

    /// Every line with its range (including the line break).
    private var lines: [(content: Substring, whole: Range<String.Index>)] {
        var result: [(Substring, Range<String.Index>)] = []
        var start = text.startIndex
        while start < text.endIndex {
            let breakIndex = text[start...].firstIndex { $0 == "\n" || $0 == "\r\n" } ?? text.endIndex
            let end = breakIndex == text.endIndex ? breakIndex : text.index(after: breakIndex)
            result.append((text[start..<breakIndex], start..<end))
            start = end
        }
        return result
    }

    /// The last line for `key` in `group`.
    private func findLine(_ key: String, in group: String) -> Line? {
        var inGroup = false
        var found: Line?
        for (content, whole) in lines {
            let trimmed = content.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") {
                inGroup = trimmed.hasPrefix("[" + group + "]")
                continue
            }
            guard inGroup, let equals = trimmed.firstIndex(of: "=") else { continue }
            var name = trimmed[..<equals]
            while name.last == " " || name.last == "\t" { name = name.dropLast() }
            guard name == key else { continue }
            var valueStart = trimmed.index(after: equals)
            while valueStart < trimmed.endIndex, trimmed[valueStart] == " " || trimmed[valueStart] == "\t" {
                valueStart = trimmed.index(after: valueStart)
            }
            found = Line(whole: whole, value: valueStart..<content.endIndex)
        }
        return found
    }

    /// Where a new entry goes: after the group's last entry.
    private func groupEnd(_ group: String) -> String.Index? {
        var inGroup = false
        var end: String.Index?
        for (content, whole) in lines {
            let trimmed = content.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") {
                if inGroup { return end }
                inGroup = trimmed.hasPrefix("[" + group + "]")
                if inGroup { end = whole.upperBound }
                continue
            }
            if inGroup, !trimmed.isEmpty { end = whole.upperBound }
        }
        return end
    }
}
