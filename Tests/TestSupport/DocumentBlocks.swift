import Foundation

/// The code blocks of a page in docs/, so that tests run what the docs show
/// rather than a copy of it.
public enum DocumentBlocks {
    /// The fenced blocks of `page` (relative to the repository) whose fence says `language` ("" for none).
    public static func blocks(in page: String, language: String) throws -> [String] {
        let lines = try String(contentsOfFile: Binaries.repository + "/" + page, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [String] = []
        // The open block's language and lines.
        var current: (language: Substring, lines: [String])?
        for line in lines {
            if let open = current {
                if line.hasPrefix("```") {
                    if open.language == language { blocks.append(open.lines.joined(separator: "\n") + "\n") }
                    current = nil
                } else {
                    current = (open.language, open.lines + [line])
                }
            } else if line.hasPrefix("```") {
                current = (line.dropFirst(3), [])
            }
        }
        return blocks
    }

    /// What a `$ COMMAND` transcript in `page` shows `command` printing.
    public static func output(of command: String, in page: String) throws -> String? {
        for block in try blocks(in: page, language: "") where block.hasPrefix("$ " + command + "\n") {
            return String(block.dropFirst(("$ " + command + "\n").count))
        }
        return nil
    }
}
