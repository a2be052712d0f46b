/// Edits the `[Default Applications]` of a `mimeapps.list` text, changing
/// only the lines it must and keeping every other byte: comments, other
/// groups, order, blank lines, line endings. (Tools that rewrote this file
/// from a parse lost users' comments and entries.)
public struct MimeAppsEditor: Sendable {
    public private(set) var text: String

    /// - Throws: `KeyFile.ParseError` when the text is not a keyfile: a file we
    ///   cannot parse is never touched.
    public init(_ text: String) throws(KeyFile.ParseError) {
        _ = try KeyFile(parsing: text)
        self.text = text
    }

    /// The default list for `mimeType`, or `nil` when there is no line for it.
    public func defaults(for mimeType: String) -> [String]? {
        guard let line = findLine(mimeType) else { return nil }
        return KeyFile.list(String(text[line.value]))
    }

    /// Makes `id` the first default for `mimeType`, keeping the others after it
    /// (and `previous`, when the type had no line yet).
    public mutating func makeDefault(_ id: String, for mimeType: String, previous: String?) {
        let current = defaults(for: mimeType) ?? (previous.map { [$0] } ?? [])
        setDefaults([id] + current.filter { $0 != id }, for: mimeType)
    }

    /// Removes `id` from the defaults for `mimeType`; the line goes when it empties.
    public mutating func removeDefault(_ id: String, for mimeType: String) {
        guard let current = defaults(for: mimeType), current.contains(id) else { return }
        setDefaults(current.filter { $0 != id }, for: mimeType)
    }

    private mutating func setDefaults(_ ids: [String], for mimeType: String) {
        // Escaped again: the IDs were read through KeyFile.list, which unescapes.
        let value = KeyFile.listValue(ids)
        if let line = findLine(mimeType) {
            if ids.isEmpty {
                text.removeSubrange(line.whole)
            } else {
                text.replaceSubrange(line.value, with: value)
            }
            return
        }
        guard !ids.isEmpty else { return }
        let newLine = mimeType + "=" + value
        let newline = text.contains("\r\n") ? "\r\n" : "\n"
        if let end = groupEnd("Default Applications") {
            if end == text.endIndex, !text.hasSuffix("\n") {
                text += newline + newLine + newline  // the file ended without a line break
            } else {
                text.insert(contentsOf: newLine + newline, at: end)
            }
        } else {
            if !text.isEmpty && !text.hasSuffix("\n") { text += newline }
            if !text.isEmpty { text += newline }
            text += "[Default Applications]" + newline + newLine + newline
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

    /// The last line for `mimeType` in `[Default Applications]` (the one that counts).
    private func findLine(_ mimeType: String) -> Line? {
        var inGroup = false
        var found: Line?
        for (content, whole) in lines {
            let trimmed = content.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") {
                inGroup = trimmed.hasPrefix("[Default Applications]")
                continue
            }
            guard inGroup, let equals = trimmed.firstIndex(of: "=") else { continue }
            var key = trimmed[..<equals]
            while key.last == " " || key.last == "\t" { key = key.dropLast() }
            guard key == mimeType else { continue }
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
