import Foundation
import Testing
import TestSupport

/// The library product's public API says what each declaration is: the
/// modules an app imports (`OpenURL`, `LinkDetection`, `HostNames`) and every
/// module they link (the contract, the vocabulary, the bus layer under them),
/// whose public declarations an app sees. A witness of a protocol requirement
/// documented in the protocol (`description`, `rawValue`, `DBusName`'s and
/// `DBusRepresentable`'s members) takes the requirement's documentation, as
/// DocC shows it, and is not counted.
@Suite struct PublicDocumentationTests {
    static let witnessPattern =
        #"public\s+(static\s+)?(var description\b|let description\b|var rawValue\b|let rawValue\b|var dbusType\b|var dbusValue\b|init\?\(dbusValue|init\(trusted |static let kind\b|static func problem\(with|static func < |static func == |func hash\(into)"#

    @Test(arguments: ["OpenURL", "LinkDetection", "HostNames", "DispatcherAPI", "Routing", "DBus", "Posix", "SafeText", "CommandLineOptions"])
    func everyPublicDeclarationHasADocComment(module: String) throws {
        let root = Binaries.repository + "/Sources/" + module
        var undocumented: [String] = []
        var declarations = 0
        let witness = try Regex(Self.witnessPattern)
        let declaration = try Regex(#"^\s*(@\w+(\([^)]*\))?\s+)*public\s+(static\s+|final\s+|nonisolated\s+|mutating\s+|indirect\s+)*(func|var|let|struct|enum|class|protocol|init|typealias|case|subscript|actor)\b"#)
        for file in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where file.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.firstMatch(of: declaration) != nil && line.firstMatch(of: witness) == nil {
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
