import Foundation
import Testing
import TestSupport

/// Every Swift code block in the README and docs/ compiles against the
/// built library (issue 14, item 8: the README's snippet did not).
@Suite(.timeLimit(.minutes(2)))
struct DocumentationTests {
    /// The ```swift blocks of a Markdown file, with the line each starts on.
    static func swiftBlocks(in path: String) throws -> [(line: Int, code: String)] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [(Int, String)] = []
        var current: (Int, [String])?
        for (index, line) in lines.enumerated() {
            if var open = current {
                if line.hasPrefix("```") {
                    blocks.append((open.0, open.1.joined(separator: "\n") + "\n"))
                    current = nil
                } else {
                    open.1.append(line)
                    current = open
                }
            } else if line.hasPrefix("```swift") {
                current = (index + 1, [])
            }
        }
        return blocks
    }

    static var documents: [String] {
        let docs = Binaries.repository + "/docs"
        let pages = ((try? FileManager.default.contentsOfDirectory(atPath: docs)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
        return [Binaries.repository + "/README.md"] + pages.map { docs + "/" + $0 }
    }

    @Test func everySwiftBlockInTheDocsCompiles() async throws {
        let flags = try await run(["pkg-config", "--cflags", "dbus-1"]).stdout.split(separator: " ")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        let directory = try makeTemporaryDirectory(prefix: "openurld-snippets")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var compiled = 0
        for document in Self.documents {
            for block in try Self.swiftBlocks(in: document) {
                let file = directory + "/main.swift"
                try block.code.write(toFile: file, atomically: true, encoding: .utf8)
                let result = try await run(
                    ["swiftc", "-typecheck", "-swift-version", "6", "-I", Binaries.directory + "/Modules",
                     "-Xcc", "-fmodule-map-file=" + Binaries.repository + "/Sources/CDBus/module.modulemap",
                     "-Xcc", "-fmodule-map-file=" + Binaries.repository + "/Sources/CPosix/module.modulemap"]
                        + flags.flatMap { ["-Xcc", $0] } + [file])
                #expect(result.status == 0, "\(document):\(block.line): the Swift block does not compile:\n\(result.stderr)")
                compiled += 1
            }
        }
        #expect(compiled >= 1, "the README's library example was not found")
    }
}
