/// Which application opens a MIME type (here `x-scheme-handler/SCHEME`),
/// per the MIME Applications Associations specification.
///
/// Pure: built from parsed `mimeapps.list` levels and desktop entries; whether
/// a program is installed, and what it really is, are asked through closures.
public struct ApplicationCatalog: Sendable {
    /// A desktop entry and the applications directory it was found in.
    public struct Installed: Sendable, Equatable {
        /// The entry.
        public let entry: DesktopEntry
        /// The applications directory it is in (index into `BaseDirectories.applicationDirectories`).
        public let directoryIndex: Int
        /// `entry`, found in directory `directoryIndex`.
        public init(entry: DesktopEntry, directoryIndex: Int) {
            self.entry = entry
            self.directoryIndex = directoryIndex
        }
    }

    /// The levels in lookup order.
    public let levels: [MimeAppsList]
    /// Every installed, visible entry by ID (the first in precedence wins).
    public let entries: [String: Installed]
    /// The MIME database's aliases, alias → canonical type.
    public let aliases: [String: String]
    /// Canonical type → its aliases, sorted.
    private let aliasesOf: [String: [String]]
    /// Each type an entry's `MimeType=` names → the IDs of the entries
    /// naming it: made once, so that finding an entry claiming a type looks
    /// up its names instead of scanning every entry's list (300 entries made
    /// a lookup of a type nobody claims cost 110 000 instructions).
    private let claimants: [String: [String]]

    /// - Parameter aliases: the MIME database's `aliases` (alias → canonical
    ///   type): a type is looked up under every name it has, in
    ///   `mimeapps.list` keys and in entries' `MimeType=` alike.
    public init(levels: [MimeAppsList], entries: [String: Installed], aliases: [String: String] = [:]) {
        self.levels = levels
        self.entries = entries
        self.aliases = aliases
        var aliasesOf: [String: [String]] = [:]
        for (alias, canonical) in aliases { aliasesOf[canonical, default: []].append(alias) }
        self.aliasesOf = aliasesOf.mapValues { $0.sorted() }
        var claimants: [String: [String]] = [:]
        for (id, installed) in entries {
            for type in Set(installed.entry.mimeTypes) { claimants[type, default: []].append(id) }
        }
        self.claimants = claimants
    }

    /// Every name of `mimeType`: its canonical name first, then its aliases
    /// (an alias is another name for the same type, shared-mime-info says).
    public func names(of mimeType: String) -> [String] {
        let canonical = aliases[mimeType] ?? mimeType
        return [canonical] + (aliasesOf[canonical] ?? [])
    }

    /// What the catalog needs to know about the system.
    public struct System: Sendable {
        /// The resolved path of `program` (on `PATH` when it has no `/`), symlinks
        /// followed; `nil` when it is not installed.
        public var resolve: @Sendable (String) -> String?
        /// Whether a desktop entry is the dispatcher itself.
        public var isDispatcher: @Sendable (DesktopEntry, String?) -> Bool

        /// A system that finds programs with `resolve` and recognises the dispatcher with `isDispatcher`.
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
        defaultApplicationAndWhy(for: mimeType, system: system)?.entry
    }

    /// `defaultApplication(for:system:)`, saying whether a default line
    /// named it (`true`) or it is the most preferred application associated
    /// with the type (`false`).
    public func defaultApplicationAndWhy(for mimeType: String, system: System) -> (entry: DesktopEntry, isExplicitDefault: Bool)? {
        if let chosen = explicitDefault(for: mimeType, system: system) { return (chosen, true) }
        return associatedApplications(for: mimeType).lazy.compactMap { entries[$0]?.entry }
            .first { isUsable($0, system: system) }.map { ($0, false) }
    }

    /// The application that opens URLs of `scheme` when openurld passes one
    /// on, and why it was chosen.
    ///
    /// When the scheme's default is another application, that one. When it
    /// is the dispatcher (or there is none), the application behind it:
    /// `previous`, openurld's record of the default before it, then what the
    /// default list names after the dispatcher. Without either (a settings
    /// panel made the dispatcher the only default before openurld ever saw
    /// another), the first application that merely claims a web scheme would
    /// be arbitrary; for http and https the rule is the one a person would
    /// agree with: the default for `text/html` (the desktop's browser for
    /// pages), then an application in the `WebBrowser` category that claims
    /// the scheme, then one that claims `text/html`. Other schemes keep the
    /// specification's order.
    public func fallbackApplication(
        forScheme scheme: String, system: System, previous: PreviousDefaults = .init()
    ) -> (entry: DesktopEntry, reason: FallbackReason)? {
        let type = "x-scheme-handler/" + scheme
        if let current = currentDefaultAndWhether(for: type, system: system), !current.isDispatcher {
            return (current.entry, .schemeDefault)
        }
        let isWeb = Self.webSchemes.contains(scheme)
        // KIO sends http: to the https default: the two web schemes stand in for each other.
        let recordedTypes = isWeb ? [type] + Self.webSchemes.filter { $0 != scheme }.map { "x-scheme-handler/" + $0 } : [type]
        for recorded in recordedTypes {
            if let id = previous[recorded], let entry = entries[id]?.entry, isUsable(entry, system: system) { return (entry, .previousDefault) }
        }
        if let listed = explicitDefault(for: type, system: system) { return (listed, .listedAfterDispatcher) }
        guard isWeb else {
            return defaultApplication(for: type, system: system).map { ($0, .schemeClaimant) }
        }
        if let page = explicitDefault(for: "text/html", system: system) { return (page, .pageDefault) }
        if let id = previous["text/html"], let entry = entries[id]?.entry, isUsable(entry, system: system) { return (entry, .previousDefault) }
        for candidateType in [type, "text/html"] {
            let browser = associatedApplications(for: candidateType).lazy.compactMap { self.entries[$0]?.entry }
                .first { $0.categories.contains("WebBrowser") && self.isUsable($0, system: system) }
            if let browser { return (browser, .webBrowser) }
        }
        return defaultApplication(for: type, system: system).map { ($0, .schemeClaimant) }
    }

    /// Why `fallbackApplication` chose what it chose, for `openurl default` and `explain`.
    public enum FallbackReason: String, Sendable, CaseIterable {
        /// The scheme's default in mimeapps.list is another application: openurld is not the default.
        case schemeDefault = "the scheme's default"
        /// openurld's record of the default before it.
        case previousDefault = "the default before openurld"
        /// The next application in the scheme's default list, after the dispatcher.
        case listedAfterDispatcher = "listed after openurld in the scheme's defaults"
        /// The default for text/html, as the scheme's default is the dispatcher alone.
        case pageDefault = "the default for text/html"
        /// A web browser claiming the scheme or text/html.
        case webBrowser = "a web browser that claims it; no default or record names one"
        /// The first application claiming the scheme, in the specification's order.
        case schemeClaimant = "the first application that claims it"
    }

    /// The schemes whose fallback is the web browser.
    static let webSchemes = ["http", "https"]

    /// The default for `mimeType` as the specification decides it, the
    /// dispatcher included: the first valid desktop file the
    /// `[Default Applications]` lines name, level by level.
    public func currentDefault(for mimeType: String, system: System) -> DesktopEntry? {
        currentDefaultAndWhether(for: mimeType, system: system)?.entry
    }

    /// `currentDefault`, and whether it is the dispatcher: each candidate's
    /// program looked up once for both questions.
    private func currentDefaultAndWhether(for mimeType: String, system: System) -> (entry: DesktopEntry, isDispatcher: Bool)? {
        for level in levels {
            for name in names(of: mimeType) {
                for id in level.defaults[name] ?? [] {
                    guard let entry = entries[id]?.entry else { continue }
                    let program = Program(of: entry, system: system)
                    if system.isDispatcher(entry, program.resolved) { return (entry, true) }
                    if isUsable(entry, program: program, system: system) { return (entry, false) }
                }
            }
        }
        return nil
    }

    /// Each recorded type's default when it is an application other than the
    /// dispatcher: what `PreviousDefaults` keeps.
    public func observedDefaults(system: System) -> [String: String] {
        var types = Set<String>()
        for level in levels { types.formUnion(level.defaults.keys.filter(PreviousDefaults.isRecorded)) }
        var observed: [String: String] = [:]
        for type in types {
            guard let entry = currentDefault(for: type, system: system), !isDispatcher(entry, system: system) else { continue }
            observed[type] = entry.id
        }
        return observed
    }

    /// The first usable application a mimeapps.list `[Default Applications]` names for `mimeType`.
    private func explicitDefault(for mimeType: String, system: System) -> DesktopEntry? {
        for level in levels {
            for name in names(of: mimeType) {
                for id in level.defaults[name] ?? [] {
                    if let installed = entries[id], isUsable(installed.entry, system: system) { return installed.entry }
                }
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
        let names = names(of: mimeType)
        for level in levels where !level.isDesktopSpecific {
            for name in names {
                for id in level.added[name] ?? [] where isInScope(id, from: level.scope) { add(id) }
                for id in level.removed[name] ?? [] where isInScope(id, from: level.removalScope) { blocked.insert(id) }
            }
        }
        // The entries listing any name of the type, in precedence order: by
        // directory, then by ID.
        var listing = Set<String>()
        for name in names { listing.formUnion(claimants[name] ?? []) }
        let ranked = listing.compactMap { id in entries[id].map { (directory: $0.directoryIndex, id: id) } }.sorted { ($0.directory, $0.id) < ($1.directory, $1.id) }
        for entry in ranked { add(entry.id) }
        return ordered
    }

    /// Added and removed associations apply to desktop files in the level's
    /// own directory or a later one.
    private func isInScope(_ id: String, from scope: Int) -> Bool {
        guard let installed = entries[id] else { return true }
        return installed.directoryIndex >= scope
    }

    /// Whether the entry is the dispatcher: by its ID, its bus name or the program it runs.
    public func isDispatcher(_ entry: DesktopEntry, system: System) -> Bool {
        system.isDispatcher(entry, Program(of: entry, system: system).resolved)
    }

    /// Whether the entry can be launched and is not the dispatcher.
    public func isUsable(_ entry: DesktopEntry, system: System) -> Bool {
        guard entry.isApplication, !entry.hidden else { return false }
        return isUsable(entry, program: Program(of: entry, system: system), system: system)
    }

    /// An entry's `Exec` line read, and its program looked up: what both
    /// `isDispatcher` and `isUsable` need, so that asking both costs one
    /// parse and one lookup.
    private struct Program {
        /// Whether the entry has an `Exec` line that parses.
        let parsed: Bool
        /// The program's resolved path; `nil` without one, or when it is not installed.
        let resolved: String?

        init(of entry: DesktopEntry, system: System) {
            let line = entry.exec.flatMap { try? ExecLine($0) }
            parsed = line != nil
            resolved = line.flatMap { system.resolve($0.program) }
        }
    }

    private func isUsable(_ entry: DesktopEntry, program: Program, system: System) -> Bool {
        guard entry.isApplication, !entry.hidden else { return false }
        if let tryExec = entry.tryExec, system.resolve(tryExec) == nil { return false }
        // No Exec line, or one that cannot be read: only D-Bus activation can start it.
        if entry.exec == nil || !program.parsed {
            guard entry.dbusActivatable else { return false }
        } else if program.resolved == nil && !entry.dbusActivatable {
            return false
        }
        return !system.isDispatcher(entry, program.resolved)
    }
}
