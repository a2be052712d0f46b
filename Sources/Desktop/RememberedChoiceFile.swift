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

    public init(base: BaseDirectories) {
        path = RuleFiles.directories(base)[0] + "/" + RememberedChoices.fileName
    }

    /// One read-change-write at a time in this process: two walks remembering
    /// at once would otherwise each write the file as it was before the other.
    private static let editing = Mutex(())

    /// Adds (or replaces) the rule for `choice`, atomically.
    public func remember(_ choice: RememberedChoice) throws(WriteError) {
        let entry = RememberedChoices.Entry(
            host: choice.host, includesSubdomains: choice.includesSubdomains,
            schemes: RememberedChoices.Entry.schemes(for: choice.scheme), target: choice.target, priority: choice.priority)
        try Self.editing.withLock { _ throws(WriteError) in
            try FileSystem.replace(path, with: RememberedChoices.adding(entry, to: (try? FileSystem.read(path)) ?? nil))
        }
    }

    /// Removes the remembered rules for `host`; returns the names removed.
    public func forget(_ host: String) throws(WriteError) -> [String] {
        try Self.editing.withLock { _ throws(WriteError) in
            guard let text = (try? FileSystem.read(path)) ?? nil else { return [] }
            let (kept, removed) = RememberedChoices.forgetting(host, in: text)
            if !removed.isEmpty { try FileSystem.replace(path, with: kept) }
            return removed
        }
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

    public init(listPaths: [String] = RememberScopes.listPaths) {
        paths = listPaths
    }

    /// `nil` when the URL has no host to remember an answer for.
    public func targets(for url: ValidatedURL) -> RememberTargets? {
        guard case .name(let host)? = url.host, !host.isEmpty else { return nil }
        let suffixes = list.withLock { cached in
            if cached == nil {
                cached = .some(paths.lazy.compactMap { (try? FileSystem.read($0)) ?? nil }.first.map(PublicSuffixList.init))
            }
            return cached!
        }
        return RememberTargets(host: host, domain: suffixes?.registrableDomain(of: host))
    }
}
