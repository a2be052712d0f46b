import Foundation
import Testing
import TestSupport

/// Every public declaration says what it is: in the library product (what
/// an app imports, and every module it links) and in the modules the
/// programs are built from, each of which is a library to the next layer. A
/// witness of a protocol requirement
/// documented in the protocol (`description`, `rawValue`, `DBusName`'s and
/// `DBusRepresentable`'s members) takes the requirement's documentation, as
/// DocC shows it, and is not counted.
@Suite struct PublicDocumentationTests {
    static let witnessPattern =
        #"public\s+(static\s+)?(var description\b|let description\b|var rawValue\b|let rawValue\b|var dbusType\b|var dbusValue\b|init\?\(dbusValue|init\(trusted |static let kind\b|static func problem\(with|static func < |static func == |func hash\(into)"#

    /// Every library target of the package (the C bindings and executables have no Swift API).
    static let modules = (try? FileManager.default.contentsOfDirectory(atPath: Binaries.repository + "/Sources"))?
        .filter { name in
            // Executables are lower-case; a C binding is C and a capital (CDBus, CGtk).
            let letters = Array(name)
            return letters.first?.isUppercase == true && !(letters.count > 1 && letters[0] == "C" && letters[1].isUppercase)
        }.sorted() ?? []

    @Test func everyLibraryTargetIsChecked() {
        #expect(Self.modules.count >= 15 && Self.modules.contains("DispatcherAPI") && !Self.modules.contains("openurl"), "\(Self.modules)")
    }

    @Test(arguments: modules)
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
