extension Option {
    /// The options as `--help` lists them, then any `extra` rows (`--`, say).
    /// `alignedWith`: other rows whose column these share, as one page's lists do.
    public static func helpLines(
        for options: [Option], extra: [(label: String, help: String)] = [], alignedWith other: [(label: String, help: String)] = []
    ) -> String {
        helpRows(options.map { ($0.names.joined(separator: ", ") + ($0.value.map { " " + $0 } ?? ""), $0.help) } + extra, alignedWith: other)
    }

    /// Rows of a `--help` list: each label, then its text wrapped to `width`
    /// columns, the texts aligned in one column (a label too long for it
    /// gets a line of its own).
    public static func helpRows(
        _ rows: [(label: String, help: String)], alignedWith other: [(label: String, help: String)] = [], indent: Int = 2, width: Int = 78
    ) -> String {
        let fitting = (rows + other).map { $0.label.count }.filter { $0 <= 24 }.max() ?? 0
        let column = indent + fitting + 2
        var text = ""
        for row in rows {
            var lines = wrap(row.help, width: width - column)
            let head = String(repeating: " ", count: indent) + row.label
            if head.count + 2 > column {
                text += head + "\n"
            } else {
                text += head + String(repeating: " ", count: column - head.count) + lines.removeFirst() + "\n"
            }
            for line in lines { text += String(repeating: " ", count: column) + line + "\n" }
        }
        return text
    }

    /// `text`'s words in lines of at most `width` characters (a longer word
    /// alone on its line); a line break in `text` is kept.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            lines.append(line)
        }
        return lines
    }
}
