import FileAccess
import XDG

/// Finding and reading rule files: `$XDG_CONFIG_HOME/openurld/rules.d/*.rules`,
/// then each `$XDG_CONFIG_DIRS/openurld/rules.d/`. A file in an earlier
/// directory hides every file of the same name in later ones (systemd's
/// drop-in semantics: `/etc/xdg/…/10-x.rules` is overridden by the user's
/// `10-x.rules`, and masked by an empty file or a symlink to `/dev/null`).
/// The files that remain are read in the order of their names.
public enum RuleFiles {
    /// The file name suffix of rule files.
    public static let suffix = ".rules"
    /// The most files read from all directories together.
    public static let maximumFiles = 1024

    /// The rule directories, most important first.
    public static func directories(_ base: BaseDirectories) -> [String] {
        base.configDirectories("openurld/rules.d")
    }

    /// The files that take effect, in the order they are read.
    public static func files(in directories: [String]) throws(ResourceExhausted) -> [String] {
        var chosen: [String: String] = [:]
        for directory in directories {
            for entry in try FileSystem.list(directory) where entry.name.hasSuffix(suffix) && !entry.name.hasPrefix(".") {
                if chosen[entry.name] == nil { chosen[entry.name] = directory + "/" + entry.name }
            }
        }
        return chosen.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { chosen[$0]! }
    }

    /// What loading found: the rules, the problems, and the files read.
    public struct Load: Sendable {
        /// The rules read, in the order they are asked at equal priority.
        public let rules: [Rule]
        /// The problems found, each at its file and line.
        public let diagnostics: [RuleDiagnostic]
        /// The files read, in that order.
        public let files: [String]
    }

    /// Reads the rules of the rule directories.
    public static func load(from directories: [String]) -> Load {
        do {
            return load(files: try files(in: directories))
        } catch {
            return Load(rules: [], diagnostics: [RuleDiagnostic(RuleSource(path: directories.first ?? "", line: 0), "cannot list the rule directories: \(error)")], files: [])
        }
    }

    /// Reads the rules of `files`, in order.
    public static func load(files: [String]) -> Load {
        var rules: [Rule] = []
        var diagnostics: [RuleDiagnostic] = []
        for (index, path) in files.enumerated() {
            guard index < maximumFiles else {
                diagnostics.append(RuleDiagnostic(RuleSource(path: path, line: 0), "more than \(maximumFiles) rule files; this one and later ones are ignored"))
                break
            }
            let text: String?
            do { text = try FileSystem.read(path) } catch {
                diagnostics.append(RuleDiagnostic(RuleSource(path: path, line: 0), "cannot read: \(error)"))
                continue
            }
            guard let text else {
                if FileSystem.realPath(path) != "/dev/null" {
                    diagnostics.append(RuleDiagnostic(RuleSource(path: path, line: 0), "cannot read: missing, not a regular file, or larger than \(FileSystem.maximumFileSize / 1024) KiB"))
                }
                continue
            }
            let parsed = RuleParser.parse(text, path: path)
            rules += parsed.rules
            diagnostics += parsed.diagnostics
        }
        if rules.filter(\.isEnabled).count > RuleSet.maximumCount {
            diagnostics.append(RuleDiagnostic(RuleSource(path: files.last ?? "", line: 0), "more than \(RuleSet.maximumCount) enabled rules; the later ones are ignored"))
        }
        return Load(rules: rules, diagnostics: diagnostics, files: files)
    }
}
