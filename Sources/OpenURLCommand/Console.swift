import Glibc
import Posix
import Routing
import SafeText

/// Standard output and error, written with one `write` per call. Every line
/// is passed through `displayable`, since what is shown includes peers' text
/// (handler names, rule values, hosts): nothing printed can drive the terminal.
enum Console {
    static func out(_ text: String) { write(1, safeLines(text)) }
    /// One error line: a newline in it (a file name may have one) is spelled
    /// out like every other control character, so it cannot forge a second
    /// line; `hint`, our own text, follows on a line of its own.
    static func error(_ text: String, hint: String? = nil) {
        write(2, "openurl: " + displayable(text) + "\n" + (hint.map { $0 + "\n" } ?? ""))
    }

    static func safeLines(_ text: String) -> String {
        // Printable ASCII and line ends need no look at Unicode properties.
        if text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }) { return text }
        guard text.unicodeScalars.contains(where: { $0 != "\n" && needsEscape($0) }) else { return text }
        // Line by line (split by bytes, not by grapheme), each line escaped.
        return text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { displayable(String(Substring($0))) }.joined(separator: "\n")
    }

    private static func write(_ fd: Int32, _ text: String) {
        // A closed pipe or a full disk loses the line: there is nowhere left to say so.
        try? FileDescriptor(fd).writeAll(text.utf8)
    }
}

/// Minimal JSON output (no Foundation in the CLI).
enum JSON {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if needsEscape(scalar) {
                    // Escaped as JSON allows, so that piping to a terminal is safe too.
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }
    static func object(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
