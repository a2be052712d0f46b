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
        for level in levels {
            for id in level.defaults[mimeType] ?? [] {
                if let installed = entries[id], isUsable(installed.entry, system: system) { return installed.entry }
            }
        }
        return associatedApplications(for: mimeType).lazy.compactMap { entries[$0]?.entry }
            .first { isUsable($0, system: system) }
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
