import FileAccess
import HostNames
import Router
import Routing
import Rules
import Synchronization
import XDG

/// `remembered.rules` in the user's rule directory: where the daemon writes
/// the chooser's remembered answers and `openurl forget` removes them. The
/// daemon's normal reload picks the file up like any rule file.
public struct RememberedChoiceFile: Sendable {
    /// The file's path: `$XDG_CONFIG_HOME/openurld/rules.d/remembered.rules`.
    public let path: String

    /// The file of the tree `base` names.
    public init(base: BaseDirectories) {
        path = RuleFiles.directories(base)[0] + "/" + RememberedChoices.fileName
    }

    /// Adds (or replaces) the rule for `choice`. The file is edited as
    /// `FileSystem.edit` edits: one edit at a time across processes, through
    /// a symlink, never over a file it could not read, keeping every byte of
    /// the other rules.
    public func remember(_ choice: RememberedChoice) throws(EditError) {
        let entry = RememberedChoices.Entry(
            host: choice.host, includesSubdomains: choice.includesSubdomains,
            schemes: RememberedChoices.Entry.schemes(for: choice.scheme), target: choice.target, priority: choice.priority)
        // Never a rule the loader would refuse, which would break `check-rules` from then on.
        let (rules, diagnostics) = RuleParser.parse(entry.text, path: path)
        guard rules.count == 1, diagnostics.isEmpty else {
            throw EditError("a rule for \(choice.host) cannot be written: \(diagnostics.map(\.description).joined(separator: "; "))")
        }
        try FileSystem.edit(path) { text in RememberedChoices.adding(entry, to: text) }
    }

    /// Removes the remembered rules for `host`; returns the names removed.
    public func forget(_ host: String) throws(EditError) -> [String] {
        var removed: [String] = []
        try FileSystem.edit(path) { text in
            guard let text else { return nil }
            let result = RememberedChoices.forgetting(host, in: text)
            removed = result.removed
            return result.removed.isEmpty ? nil : result.text
        }
        return removed
    }

    /// The remembered rules, as the daemon loads them.
    public func rules() -> (rules: [Rule], diagnostics: [RuleDiagnostic]) {
        guard let text = (try? FileSystem.read(path)) ?? nil else { return ([], []) }
        return RuleParser.parse(text, path: path)
    }
}

/// What a URL's answer could be remembered for: its host, and its
/// registrable domain from the system's Public Suffix List
/// (`/usr/share/publicsuffix`), read once, on first use.
public final class RememberScopes: Sendable {
    /// Where Debian, Fedora and Arch install the list.
    public static let listPaths = ["/usr/share/publicsuffix/public_suffix_list.dat"]
    private let paths: [String]
    private let list = Mutex<PublicSuffixList??>(nil)

    /// Scopes from the first readable list of `listPaths`.
    public init(listPaths: [String] = RememberScopes.listPaths) {
        paths = listPaths
    }

    /// `nil` when the URL has no host to remember an answer for.
    public func targets(for url: ValidatedURL) -> RememberTargets? {
        // A remembered host is exact: a host with `*` (`https://*.bank.example/`)
        // would be written as a pattern covering every subdomain.
        guard case .name(let host)? = url.host, !host.isEmpty, !host.contains("*") else { return nil }
        let suffixes = list.withLock { cached in
            if cached == nil {
                cached = .some(paths.lazy.compactMap { (try? FileSystem.read($0)) ?? nil }.first.map(PublicSuffixList.init))
            }
            return cached!
        }
        return RememberTargets(host: host, domain: suffixes?.registrableDomain(of: host))
    }
}
