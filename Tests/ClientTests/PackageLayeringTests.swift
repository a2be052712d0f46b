import Foundation
import Testing
import TestSupport

/// The layering comment at the top of Package.swift is the design; this
/// checks that the code keeps it: every target is in it, each imports only
/// targets listed below it, and declares what it imports.
@Suite struct PackageLayeringTests {
    /// Modules every layer may import: the toolchain's own.
    static let system: Set<String> = ["Glibc", "Dispatch", "Synchronization", "FoundationEssentials", "Foundation", "Testing", "XCTest"]

    static let manifest = (try? String(contentsOfFile: Binaries.repository + "/Package.swift", encoding: .utf8)) ?? ""

    /// The module names of the comment, bottom first.
    static var layers: [String] {
        var names: [String] = []
        var inComment = false
        for line in manifest.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("// Layering") { inComment = true; continue }
            guard inComment else { continue }
            guard line.hasPrefix("//   ") else { if !names.isEmpty { break } else { continue } }
            let words = line.dropFirst(5).split(separator: " ")
            guard let first = words.first else { continue }
            // "openurld, openurl  main.swift: …" names two (or more).
            let listed = words.prefix { $0.hasSuffix(",") }
            names += listed.map { String($0.dropLast()) } + [String(words[listed.count])]
        }
        return names
    }

    /// Source targets: name → (declared dependencies, directory).
    static var targets: [String: (dependencies: Set<String>, path: String)] {
        var result: [String: (Set<String>, String)] = [:]
        let pattern = try! NSRegularExpression(
            pattern: #"\.(?:target|executableTarget|systemLibrary)\(\s*name: "([^"]+)"(?:,\s*dependencies: \[([^\]]*)\])?(?:,\s*path: "([^"]+)")?"#)
        let text = manifest as NSString
        for match in pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let name = text.substring(with: match.range(at: 1))
            let dependencies = match.range(at: 2).location == NSNotFound ? "" : text.substring(with: match.range(at: 2))
            let path = match.range(at: 3).location == NSNotFound ? "Sources/" + name : text.substring(with: match.range(at: 3))
            let names = dependencies.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"\n")) }.filter { !$0.isEmpty }
            result[name] = (Set(names), path)
        }
        return result
    }

    static func imports(under path: String) -> Set<String> {
        let root = Binaries.repository + "/" + path
        var found = Set<String>()
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") || file.hasSuffix(".c") || file.hasSuffix(".h") {
            let text = (try? String(contentsOfFile: root + "/" + file, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "import"), index == 0 || words[..<index].allSatisfy({ $0.hasPrefix("@") }), index + 1 < words.count {
                    found.insert(String(words[index + 1]))
                }
            }
        }
        return found
    }

    @Test func theLayeringCommentNamesEverySourceTarget() {
        let sources = Self.targets.filter { $0.value.path.hasPrefix("Sources/") }.map(\.key)
        #expect(!Self.layers.isEmpty)
        for name in sources { #expect(Self.layers.contains(name), "\(name) is not in the layering comment") }
        for name in Self.layers { #expect(Self.targets[name] != nil, "the comment names \(name), which is no target") }
    }

    @Test func eachTargetImportsOnlyWhatIsBelowItAndWhatItDeclares() {
        let layers = Self.layers
        for (name, target) in Self.targets where target.path.hasPrefix("Sources/") {
            guard let level = layers.firstIndex(of: name) else { continue }
            for module in Self.imports(under: target.path) where !Self.system.contains(module) {
                let below = layers.firstIndex(of: module).map { $0 < level } ?? false
                #expect(below, "\(name) imports \(module), which is not below it in Package.swift's layering comment")
                #expect(target.dependencies.contains(module), "\(name) imports \(module) without declaring it")
            }
        }
    }

    /// The pure cores stay pure: no D-Bus, no processes.
    @Test(arguments: ["SafeText", "HostNames", "Routing", "LinearRegex", "LinkDetection", "XDG", "Rules", "Router"])
    func pureCoresLinkNeitherDBusNorSpawn(_ name: String) {
        var reachable = Set<String>()
        var queue = [name]
        while let next = queue.popLast() {
            for dependency in Self.targets[next]?.dependencies ?? [] where reachable.insert(dependency).inserted { queue.append(dependency) }
        }
        #expect(reachable.isDisjoint(with: ["DBus", "CDBus", "Spawn", "CSpawn", "Desktop"]), "\(name) reaches \(reachable.sorted())")
    }

    /// The daemon, the CLI and the dmenu adapter load no GTK: a headless
    /// install of the openurld package needs none.
    @Test func onlyTheChooserLinksGTK() async throws {
        for binary in [Binaries.openurld, Binaries.openurl, Binaries.dmenuChooser] {
            let libraries = try await run(["ldd", binary])
            #expect(libraries.status == 0 && libraries.stdout.contains("libdbus-1"), "\(binary): \(libraries.stderr)")
            #expect(!libraries.stdout.contains("libgtk") && !libraries.stdout.contains("libadwaita") && !libraries.stdout.contains("libglib"),
                    "\(binary) links \(libraries.stdout)")
        }
        #expect(try await run(["ldd", Binaries.chooser]).stdout.contains("libadwaita-1"))
    }
}
