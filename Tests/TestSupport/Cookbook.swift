import Foundation

/// The recipes of `docs/rules.md`, read from the document itself so that
/// the tests check exactly what readers copy.
public struct Cookbook: Sendable {
    /// One rule file from the document and the examples under it.
    public struct Recipe: Sendable {
        public let title: String
        public let text: String
        public let examples: [Example]
    }

    /// `- \`URL\` [from \`APP\`] → OUTCOME`
    public struct Example: Sendable, CustomStringConvertible {
        public let url: String
        public let callerAppID: String?
        public let expected: Expected
        public var description: String { "\(url)\(callerAppID.map { " from \($0)" } ?? "") → \(expected)" }
    }

    public enum Expected: Sendable, Equatable {
        case passesOn(String)
        case opens(String, with: String)
        case runs(String, with: String)
        case discarded
    }

    public let recipes: [Recipe]

    public static func load() throws -> Cookbook {
        let text = try String(contentsOfFile: Binaries.repository + "/docs/rules.md", encoding: .utf8)
        let cookbook = text.components(separatedBy: "\n## Cookbook\n").last!
        var recipes: [Recipe] = []
        var title = ""
        var block: [String]?
        var current: (title: String, text: String, examples: [Example])?
        func finish() {
            if let current { recipes.append(Recipe(title: current.title, text: current.text, examples: current.examples)) }
            current = nil
        }
        for line in cookbook.components(separatedBy: "\n") {
            if line.hasPrefix("### ") {
                finish()
                title = String(line.dropFirst(4))
            } else if line == "```ini" {
                block = []
            } else if line == "```", let lines = block {
                current = (title, lines.joined(separator: "\n") + "\n", [])
                block = nil
            } else if block != nil {
                block!.append(line)
            } else if line.hasPrefix("- `"), current != nil {
                current!.examples.append(try example(line))
            }
        }
        finish()
        return Cookbook(recipes: recipes)
    }

    private static func example(_ line: String) throws -> Example {
        let quoted = line.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let outcome = line.components(separatedBy: " → ").last!
        let from = line.components(separatedBy: " → ").first!.contains("` from `") ? quoted[1] : nil
        let rest = Array(quoted.dropFirst(from == nil ? 1 : 2))
        let expected: Expected
        if outcome.hasPrefix("passes on") { expected = .passesOn(rest[0]) }
        else if outcome.hasPrefix("opens") { expected = .opens(rest[0], with: rest[1]) }
        else if outcome.hasPrefix("runs") { expected = .runs(rest[1], with: rest[0]) }
        else if outcome == "is discarded" { expected = .discarded }
        else { throw CookbookError(line: line) }
        return Example(url: quoted[0], callerAppID: from, expected: expected)
    }

    struct CookbookError: Error, CustomStringConvertible {
        let line: String
        var description: String { "cannot read the cookbook example: \(line)" }
    }
}
