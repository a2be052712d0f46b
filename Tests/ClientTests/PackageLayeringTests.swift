import Foundation
import Testing
import TestSupport

/// The layering comment at the top of Package.swift is the design; this
/// checks that the code keeps it: every target is in it, each imports only
/// targets listed below it, and declares what it imports.
@Suite struct PackageLayeringTests {
    /// Modules every layer may import: the toolchain's own (CDispatch is
    /// libdispatch's C interface, which the Dispatch overlay wraps).
    static let system: Set<String> = ["Glibc", "Dispatch", "CDispatch", "Synchronization", "FoundationEssentials", "Foundation", "Testing", "XCTest"]

    static let manifest = (try? String(contentsOfFile: Binaries.repository + "/Package.swift", encoding: .utf8)) ?? ""

    /// The module names of the comment, bottom first.
    static var layers: [String] {
        var names: [String] = []
        var inComment = false
        for line in manifest.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("// Layering") { inComment = true; continue }
            guard inComment else { continue }
            guard line.hasPrefix("//   ") else { if !names.isEmpty { break } else { continue } }
            // A description's second line is indented further.
            guard !line.dropFirst(5).hasPrefix(" ") else { continue }
            let words = line.dropFirst(5).split(separator: " ")
            guard !words.isEmpty else { continue }
            // "openurld, openurl  main.swift: …" names two (or more).
            let listed = words.prefix { $0.hasSuffix(",") }
            names += listed.map { String($0.dropLast()) } + [String(words[listed.count])]
        }
        return names
    }

    /// Source targets in the manifest's order: name, declared dependencies, directory.
    static var declared: [(name: String, dependencies: Set<String>, path: String)] {
        var result: [(String, Set<String>, String)] = []
        let pattern = try! NSRegularExpression(
            pattern: #"\.(?:target|executableTarget|systemLibrary)\(\s*name: "([^"]+)"(?:,\s*dependencies: \[([^\]]*)\])?(?:,\s*path: "([^"]+)")?"#)
        let text = manifest as NSString
        for match in pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let name = text.substring(with: match.range(at: 1))
            let dependencies = match.range(at: 2).location == NSNotFound ? "" : text.substring(with: match.range(at: 2))
            let path = match.range(at: 3).location == NSNotFound ? "Sources/" + name : text.substring(with: match.range(at: 3))
            let names = dependencies.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"\n")) }.filter { !$0.isEmpty }
            result.append((name, Set(names), path))
        }
        return result
    }

    /// Source targets: name → (declared dependencies, directory).
    static var targets: [String: (dependencies: Set<String>, path: String)] {
        Dictionary(uniqueKeysWithValues: declared.map { ($0.name, ($0.dependencies, $0.path)) })
    }

    /// Every target `name` reaches through its declared dependencies.
    static func closure(of name: String) -> Set<String> {
        var reachable = Set<String>()
        var queue = [name]
        while let next = queue.popLast() {
            for dependency in targets[next]?.dependencies ?? [] where reachable.insert(dependency).inserted { queue.append(dependency) }
        }
        return reachable
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
                    // `import struct Module.Type` imports one declaration of Module.
                    let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let", "actor"]
                    let named = kinds.contains(words[index + 1]) && index + 2 < words.count ? words[index + 2] : words[index + 1]
                    found.insert(String(named.split(separator: ".").first ?? named))
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

    /// Each target's declared dependencies are listed before it, and the
    /// manifest declares the targets in the comment's order: the comment is
    /// the dependency order, not only an order that imports happen to fit.
    @Test func theCommentIsTheManifestsDependencyOrder() {
        let layers = Self.layers
        for (name, target) in Self.targets where target.path.hasPrefix("Sources/") {
            guard let level = layers.firstIndex(of: name) else { continue }
            for dependency in target.dependencies {
                let before = layers.firstIndex(of: dependency).map { $0 < level } ?? false
                #expect(before, "\(name) depends on \(dependency), which the layering comment lists after it")
            }
        }
        let declared = Self.declared.filter { $0.path.hasPrefix("Sources/") }.map(\.name)
        #expect(declared == layers, "the manifest declares \(declared), the comment lists \(layers)")
    }

    /// The contract is the foundation: `DispatcherAPI` comes right after the
    /// bus layer and stands on it and the vocabulary alone, so the public
    /// `OpenURL` library links itself, the contract, the bus layer, the
    /// vocabulary with its host parser, the text escaper and the system-call
    /// layer (and the system headers' module map), never the rule engine,
    /// and no libdbus: the bus layer speaks to the bus itself.
    @Test func theContractStandsOnTheBusAndTheVocabularyAlone() {
        let layers = Self.layers
        #expect(layers.firstIndex(of: "DispatcherAPI") == layers.firstIndex(of: "DBus").map { $0 + 1 })
        #expect(Self.closure(of: "DispatcherAPI") == ["DBus", "Posix", "CPosix", "SafeText", "Routing", "HostNames"],
                "\(Self.closure(of: "DispatcherAPI").sorted())")
        // The system headers' module map (Posix's) is no Swift module of the project.
        let library = Self.closure(of: "OpenURL").subtracting(["CPosix"]).union(["OpenURL"])
        #expect(library.count <= 7, "OpenURL links \(library.sorted())")
        #expect(library.isDisjoint(with: ["Rules", "LinearRegex", "Router", "XDG", "Desktop"]), "OpenURL links \(library.sorted())")
    }

    /// System calls are retried on EINTR in one place (`Posix`), so that no
    /// caller forgets to or spins on another error; and no library aborts
    /// the program that uses it over run-time data.
    @Test func interruptedCallsAreRetriedInOnePlace() {
        for (name, target) in Self.targets where target.path.hasPrefix("Sources/") && name != "Posix" {
            let root = Binaries.repository + "/" + target.path
            for file in FileManager.default.enumerator(atPath: root)?.compactMap({ $0 as? String }) ?? [] where file.hasSuffix(".swift") {
                let text = (try? String(contentsOfFile: root + "/" + file, encoding: .utf8)) ?? ""
                for (number, line) in text.split(separator: "\n").enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    #expect(!line.contains("EINTR"), "\(name)/\(file):\(number + 1) handles EINTR itself: \(line)")
                }
            }
        }
    }

    /// The pure cores stay pure: no D-Bus, no processes.
    @Test(arguments: ["SafeText", "HostNames", "Routing", "LinearRegex", "LinkDetection", "XDG", "Rules", "Router"])
    func pureCoresLinkNeitherDBusNorSpawn(_ name: String) {
        let reachable = Self.closure(of: name)
        #expect(reachable.isDisjoint(with: ["DBus", "CDBus", "Spawn", "CSpawn", "Desktop"]), "\(name) reaches \(reachable.sorted())")
    }

    /// Each C binding has one Swift module over it, which every other module
    /// goes through: posix_spawn through `Spawn`, the missing system headers
    /// through `Posix`, GTK only in the chooser. libdbus is no module's: the
    /// bus layer speaks to the bus itself, and only the fast front (built
    /// apart, from `Front/`), the benchmarks and the tests' reference use it.
    @Test func eachCBindingIsImportedByItsOneModule() {
        let owners = ["CSpawn": "Spawn", "CPosix": "Posix", "CGtk": "openurld-chooser"]
        for (name, target) in Self.targets where target.path.hasPrefix("Sources/") && !owners.keys.contains(name) {
            for (binding, owner) in owners where name != owner {
                #expect(!Self.imports(under: target.path).contains(binding), "\(name) imports \(binding); only \(owner) may")
            }
            #expect(!Self.imports(under: target.path).contains("CDBus"), "\(name) imports CDBus, which no module of the product may")
        }
        #expect(owners.keys.allSatisfy { Self.targets[$0] != nil || $0 == "CGtk" }, "a binding is missing from the manifest")
    }

    /// The daemon, the CLI and the dmenu adapter load no GTK: a headless
    /// install of the openurld package needs none. Only the fast front loads
    /// libdbus; the rest speak to the bus themselves.
    @Test func onlyTheChooserLinksGTK() async throws {
        for binary in [Binaries.openurld, Binaries.fullCLI, Binaries.dmenuChooser, Binaries.openurl] {
            let libraries = try await run(["ldd", binary])
            #expect(libraries.status == 0, "\(binary): \(libraries.stderr)")
            #expect(libraries.stdout.contains("libdbus-1") == (binary == Binaries.openurl), "\(binary) links \(libraries.stdout)")
            #expect(!libraries.stdout.contains("libgtk") && !libraries.stdout.contains("libadwaita") && !libraries.stdout.contains("libglib"),
                    "\(binary) links \(libraries.stdout)")
        }
        #expect(try await run(["ldd", Binaries.chooser]).stdout.contains("libadwaita-1"))
    }
}
