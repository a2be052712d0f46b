import Foundation
import Testing
import TestSupport

/// The library product's public API (`OpenURL`, `LinkDetection`,
/// `HostNames`: what an app imports) says what each declaration is.
@Suite struct PublicDocumentationTests {
    @Test(arguments: ["OpenURL", "LinkDetection", "HostNames"])
    func everyPublicDeclarationHasADocComment(module: String) throws {
        let root = Binaries.repository + "/Sources/" + module
        var undocumented: [String] = []
        var declarations = 0
        let declaration = try Regex(#"^\s*(@\w+(\([^)]*\))?\s+)*public\s+(static\s+|final\s+|nonisolated\s+|mutating\s+|indirect\s+)*(func|var|let|struct|enum|class|protocol|init|typealias|case|subscript|actor)\b"#)
        for file in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where file.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.firstMatch(of: declaration) != nil {
                declarations += 1
                var above = index - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                if above < 0 || !lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                    undocumented.append("\(module)/\(file):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(declarations >= 5, "the check found only \(declarations) public declarations in \(module): it reads nothing")
        #expect(undocumented.isEmpty, "\(undocumented.joined(separator: "\n"))")
    }
}
