/// Which application opens a MIME type (here `x-scheme-handler/SCHEME`),
/// per the MIME Applications Associations specification.
///
/// Pure: built from parsed `mimeapps.list` levels and desktop entries; whether
/// a program is installed, and what it really is, are asked through closures.
public struct ApplicationCatalog: Sendable {
    /// A desktop entry and the applications directory it was found in.
    public struct Installed: Sendable, Equatable {
        public let entry: DesktopEntry
        public let directoryIndex: Int
        public init(entry: DesktopEntry, directoryIndex: Int) {
            self.entry = entry
            self.directoryIndex = directoryIndex
        }
    }

    /// The levels in lookup order.
    public let levels: [MimeAppsList]
    /// Every installed, visible entry by ID (the first in precedence wins).
    public let entries: [String: Installed]

    public init(levels: [MimeAppsList], entries: [String: Installed]) {
        self.levels = levels
        self.entries = entries
    }

    /// What the catalog needs to know about the system.
    public struct System: Sendable {
        /// The resolved path of `program` (on `PATH` when it has no `/`), symlinks
        /// followed; `nil` when it is not installed.
        public var resolve: @Sendable (String) -> String?
        /// Whether a desktop entry is the dispatcher itself.
        public var isDispatcher: @Sendable (DesktopEntry, String?) -> Bool

        public init(resolve: @escaping @Sendable (String) -> String?, isDispatcher: @escaping @Sendable (DesktopEntry, String?) -> Bool) {
            self.resolve = resolve
            self.isDispatcher = isDispatcher
        }
    }

    /// The application to open `mimeType` with, or `nil`.
    ///
    /// Defaults are taken level by level, the first valid desktop file
    /// winning (the specification's suggested algorithm: a default need not be
    /// associated with the type, and removed associations do not apply to
    /// it); entries that are not installed, not usable, or the dispatcher
    /// itself are skipped. Then the most preferred associated application.
    public func defaultApplication(for mimeType: String, system: System) -> DesktopEntry? {
        if let chosen = explicitDefault(for: mimeType, system: system) { return chosen }
        return associatedApplications(for: mimeType).lazy.compactMap { entries[$0]?.entry }
            .first { isUsable($0, system: system) }
    }

    /// The application that opens URLs of `scheme` when openurld passes one
    /// on: the scheme's default, if it is not the dispatcher. When a settings
    /// panel made the dispatcher the only default (GNOME's and Plasma's do,
    /// without keeping the previous one), the first application that merely
    /// claims the scheme would be arbitrary; for the web's schemes the rule is
    /// the one a person would agree with: the default for `text/html` (the
    /// desktop's browser for pages), then an application in the `WebBrowser`
    /// category that claims the scheme, then one that claims `text/html`.
    /// Other schemes keep the specification's order.
    public func fallbackApplication(forScheme scheme: String, system: System) -> (entry: DesktopEntry, reason: FallbackReason)? {
        let type = "x-scheme-handler/" + scheme
        if let chosen = explicitDefault(for: type, system: system) { return (chosen, .schemeDefault) }
        guard Self.webSchemes.contains(scheme) else {
            return defaultApplication(for: type, system: system).map { ($0, .schemeClaimant) }
        }
        if let page = explicitDefault(for: "text/html", system: system) { return (page, .pageDefault) }
        for candidateType in [type, "text/html"] {
            let browser = associatedApplications(for: candidateType).lazy.compactMap { self.entries[$0]?.entry }
                .first { $0.categories.contains("WebBrowser") && self.isUsable($0, system: system) }
            if let browser { return (browser, .webBrowser) }
        }
        return defaultApplication(for: type, system: system).map { ($0, .schemeClaimant) }
    }

    /// Why `fallbackApplication` chose what it chose, for `openurl default` and `explain`.
    public enum FallbackReason: String, Sendable {
        /// The scheme's own default in mimeapps.list.
        case schemeDefault = "the scheme's default"
        /// The default for text/html, as the scheme's default is the dispatcher alone.
        case pageDefault = "the default for text/html (the scheme's default is the dispatcher)"
        /// A web browser claiming the scheme or text/html.
        case webBrowser = "a web browser (Categories=WebBrowser) that claims it; no default names another application"
        /// The first application claiming the scheme, in the specification's order.
        case schemeClaimant = "the first application that claims it"
    }

    /// The schemes whose fallback is the web browser.
    static let webSchemes = ["http", "https"]

    /// The first usable application a mimeapps.list `[Default Applications]` names for `mimeType`.
    private func explicitDefault(for mimeType: String, system: System) -> DesktopEntry? {
        for level in levels {
            for id in level.defaults[mimeType] ?? [] {
                if let installed = entries[id], isUsable(installed.entry, system: system) { return installed.entry }
            }
        }
        return nil
    }

    /// Applications associated with `mimeType`, most preferred first (the
    /// specification's "Application ordering"): added associations level by
    /// level, minus removed ones, then entries listing the type themselves.
    public func associatedApplications(for mimeType: String) -> [String] {
        var ordered: [String] = []
        var seen = Set<String>()
        var blocked = Set<String>()
        func add(_ id: String) {
            guard !blocked.contains(id), entries[id] != nil, seen.insert(id).inserted else { return }
            ordered.append(id)
        }
        for level in levels where !level.isDesktopSpecific {
            for id in level.added[mimeType] ?? [] where isInScope(id, from: level.scope) { add(id) }
            for id in level.removed[mimeType] ?? [] where isInScope(id, from: level.removalScope) { blocked.insert(id) }
        }
        let listing = entries.values.filter { $0.entry.mimeTypes.contains(mimeType) }
            .sorted { ($0.directoryIndex, $0.entry.id) < ($1.directoryIndex, $1.entry.id) }
        for installed in listing { add(installed.entry.id) }
        return ordered
    }

    /// Added and removed associations apply to desktop files in the level's
    /// own directory or a later one.
    private func isInScope(_ id: String, from scope: Int) -> Bool {
        guard let installed = entries[id] else { return true }
        return installed.directoryIndex >= scope
    }

    /// Whether the entry can be launched and is not the dispatcher.
    public func isUsable(_ entry: DesktopEntry, system: System) -> Bool {
        guard entry.isApplication, !entry.hidden else { return false }
        if let tryExec = entry.tryExec, system.resolve(tryExec) == nil { return false }
        var resolved: String?
        if let exec = entry.exec {
            guard let line = try? ExecLine(exec) else { return entry.dbusActivatable && !system.isDispatcher(entry, nil) }
            resolved = system.resolve(line.program)
            if resolved == nil && !entry.dbusActivatable { return false }
        } else if !entry.dbusActivatable {
            return false
        }
        return !system.isDispatcher(entry, resolved)
    }
}
