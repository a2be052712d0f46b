import DispatcherAPI
import FileAccess
import XDG
import Spawn
import Synchronization

/// Loads the `ApplicationCatalog` of an XDG tree from disk, and keeps it
/// until something in the tree changes.
public final class DesktopDatabase: Sendable {
    /// The tree's base directories.
    public let base: BaseDirectories
    /// `$XDG_CURRENT_DESKTOP` as set (`GNOME`, `KDE:Plasma`), whose names pick the `$desktop-mimeapps.list` files.
    public let currentDesktop: String?
    private let cache = Mutex<Cached?>(nil)
    /// The catalog's watch, while it has seen no change.
    var quietWatch: PathWatch? {
        cache.withLock { cached in cached?.watch.flatMap { $0.sawChanges() ? nil : $0 } }
    }
    /// The previous-defaults record as last read, by its file's signature,
    /// and the catalog's watch (which watches its file too) that was in
    /// place when that signature was taken, and when it was.
    let record = Mutex<(signature: [Int], record: PreviousDefaults, watch: PathWatch?, checkedAt: ContinuousClock.Instant)?>(nil)
    /// The catalog generation the record was last compared with.
    let recordedGeneration = Mutex<Int?>(nil)
    /// Where the record is (its path is made once: every fallback looks at it).
    let previousDefaultsFile: PreviousDefaultsFile

    /// The last full read: which directories were listed (and how they
    /// looked), the desktop files found in them, and the catalog.
    private struct Cached {
        let directories: [String]
        let directorySignature: [Int]
        let files: [DesktopFile]
        /// The desktop files' signatures, and when they were last compared.
        var fileSignature: [Int]
        var filesCheckedAt: ContinuousClock.Instant
        /// The `mimeapps.list` and `aliases` files as last looked at.
        var defaults: DefaultsProbe
        let catalog: ApplicationCatalog
        /// Counts full reads: a new number means the catalog may differ (0: not yet numbered).
        var generation: Int
        /// When the directories and defaults were last looked at (`stat`).
        var lookedAt: ContinuousClock.Instant
        /// Watches what that look saw; `nil` when inotify cannot be had.
        var watch: PathWatch?
        /// When a watch was last tried for and could not be had.
        var watchFailedAt: ContinuousClock.Instant?
    }

    /// How long an edit made in place to a desktop file (not by writing a
    /// new file and renaming it, which changes its directory) may go unseen.
    /// Checking every file for every URL cost a `stat` per installed
    /// application; directories and `mimeapps.list` files are still checked
    /// every time.
    static let inPlaceEditLatency: Duration = .seconds(1)

    typealias DesktopFile = (id: String, path: String, directoryIndex: Int)

    /// Where GLib departs from the specifications (seen with GLib 2.74). We
    /// follow the specifications; the differential test against GLib uses
    /// these to check that every disagreement is one of them.
    struct GLibQuirks: OptionSet, Sendable {
        let rawValue: Int
        /// GLib returns `Hidden=true` entries as defaults; the Desktop Entry
        /// spec says Hidden "is strictly equivalent to the .desktop file not
        /// existing at all".
        static let hiddenEntriesExist = GLibQuirks(rawValue: 1)
        /// GLib ignores `[Removed Associations]` of
        /// `$XDG_DATA_HOME/applications/mimeapps.list` for entries in that
        /// directory; the MIME apps spec applies them to "the current
        /// directory, or a later one".
        static let dataHomeRemovalsSkipOwnDirectory = GLibQuirks(rawValue: 2)
        /// GLib skips a desktop file whose TryExec or Exec program is missing
        /// and uses a lower-precedence file with the same ID; the Desktop
        /// Entry spec says the first file with an ID "is used".
        static let unusableEntriesDoNotShadow = GLibQuirks(rawValue: 4)
    }

    let quirks: GLibQuirks

    public convenience init(environment: [String: String]) {
        self.init(environment: environment, quirks: [])
    }

    /// `watching: false` stands for a system without inotify: every lookup looks.
    init(environment: [String: String], quirks: GLibQuirks, inPlaceEditLatency: Duration = DesktopDatabase.inPlaceEditLatency,
         watching: Bool = true) {
        base = BaseDirectories(environment: environment)
        previousDefaultsFile = PreviousDefaultsFile(base: base)
        currentDesktop = environment["XDG_CURRENT_DESKTOP"]
        self.quirks = quirks
        path = environment["PATH"]
        self.inPlaceEditLatency = inPlaceEditLatency
        self.watching = watching
        mimeAppsPaths = Self.mimeAppsPaths(base: base, currentDesktop: currentDesktop)
        aliasesPaths = ([base.dataHome] + base.dataDirs).map { $0 + "/mime/aliases" }
        defaultsPaths = mimeAppsPaths.map(\.path) + aliasesPaths
    }

    // The places of the defaults, made once: they depend on the environment
    // alone (making them for every URL cost 40 000 instructions).
    /// Every `mimeapps.list` path in lookup order, with its level's properties.
    let mimeAppsPaths: [(path: String, isDesktopSpecific: Bool, scope: Int)]
    /// Each data directory's `mime/aliases`, most important first.
    let aliasesPaths: [String]
    /// Every file that holds defaults: the `mimeapps.list` files, then the `aliases` files.
    let defaultsPaths: [String]

    let inPlaceEditLatency: Duration
    /// Whether what a lookup looked at is watched (`PathWatch`).
    private let watching: Bool

    private let path: String?

    /// The catalog as the tree is now; re-read only when a directory, a
    /// `mimeapps.list` or a desktop file changed.
    ///
    /// When the system runs out of resources while reading (no file
    /// descriptor left), the last catalog read in full is used, and a partial
    /// read is never cached: it would describe the shortage, not the tree.
    /// - Throws: `ResourceExhausted` when there is no earlier catalog to use.
    ///
    /// Directories are listed again only when one of them changed (adding,
    /// removing or renaming a file changes its directory); otherwise the
    /// `mimeapps.list` files are looked at and the known desktop files at
    /// most once per `inPlaceEditLatency`, to notice edits. What is looked at
    /// is watched (`PathWatch`): while the watch has seen nothing, a lookup
    /// within `inPlaceEditLatency` of the last look reads an empty queue
    /// instead of making a `stat` for each directory and list. Without
    /// inotify, every lookup looks.
    public func catalog() throws(ResourceExhausted) -> ApplicationCatalog {
        try generationalCatalog().catalog
    }

    /// The catalog, and which full read it came from.
    func generationalCatalog() throws(ResourceExhausted) -> (catalog: ApplicationCatalog, generation: Int) {
        let now = ContinuousClock.now
        // Decided under the lock, so that only the catalog is copied out.
        let unchanged = cache.withLock { cached -> (catalog: ApplicationCatalog, generation: Int)? in
            guard let cached, let watch = cached.watch, now - cached.lookedAt < inPlaceEditLatency, !watch.sawChanges() else { return nil }
            return (cached.catalog, cached.generation)
        }
        if let unchanged { return unchanged }
        let cached = cache.withLock { $0 }
        do {
            var (looked, changed) = try look(from: cached, at: now)
            // The watch is kept while it has seen nothing and the look found
            // nothing it missed; otherwise a new one (it keeps saying it saw
            // a change). One that could not be had is tried for again after
            // `inPlaceEditLatency`, not at every lookup; and none is made at
            // the first lookup, which is the only one of a process that
            // opens one URL (`openurl` with no daemon).
            if let watch = cached?.watch, !changed, !watch.sawChanges() {
                (looked.watch, looked.watchFailedAt) = (watch, nil)
            } else if let cached, cached.watch != nil || cached.watchFailedAt.map({ now - $0 >= inPlaceEditLatency }) ?? true {
                looked.watch = watch(after: looked)
                looked.watchFailedAt = looked.watch == nil ? now : nil
            } else {
                (looked.watch, looked.watchFailedAt) = (nil, cached?.watchFailedAt)
            }
            let generation = cache.withLock { [looked] cache in
                var looked = looked
                if looked.generation == 0 { looked.generation = (cache?.generation ?? 0) + 1 }
                cache = looked
                return looked.generation
            }
            return (looked.catalog, generation)
        } catch {
            if let cached = cache.withLock({ $0 }) { return (cached.catalog, cached.generation) }
            throw error
        }
    }

    /// Looks at the tree by `stat`, from the last look `cached`: what to
    /// keep now, and whether anything differs from `cached`.
    private func look(from cached: Cached?, at now: ContinuousClock.Instant) throws(ResourceExhausted) -> (Cached, changed: Bool) {
        let files: [DesktopFile]
        let directories: [String]
        let directorySignature: [Int]
        let listedAgain: Bool
        if let cached, FileSystem.signature(of: cached.directories) == cached.directorySignature {
            (files, directories, directorySignature) = (cached.files, cached.directories, cached.directorySignature)
            listedAgain = false
        } else {
            (files, directories) = try scan()
            directorySignature = FileSystem.signature(of: directories)
            listedAgain = true
        }
        // The MIME database's aliases name types too: a change to them is a change of defaults.
        // Looked at in full only when something the last look saw changed, or an
        // applications directory did (a mimeapps.list may have appeared in it).
        let defaults = cached.flatMap { !listedAgain && $0.defaults.isCurrent ? $0.defaults : nil }
            ?? DefaultsProbe(looking: defaultsPaths, watched: Set(directories))
        if var cached, cached.directorySignature == directorySignature, defaults.hasTheSameFiles(as: cached.defaults) {
            // A directory of the defaults may have changed without a file of them: keep the new look.
            let lookChanged = defaults != cached.defaults
            cached.defaults = defaults
            cached.lookedAt = now
            if now - cached.filesCheckedAt < inPlaceEditLatency { return (cached, lookChanged) }
            if FileSystem.signature(of: files.map(\.path)) == cached.fileSignature {
                cached.filesCheckedAt = now
                return (cached, lookChanged)
            }
        }
        let fileSignature = FileSystem.signature(of: files.map(\.path))
        let catalog = ApplicationCatalog(levels: try loadLevels(), entries: try loadEntries(files), aliases: loadAliases())
        let read = Cached(directories: directories, directorySignature: directorySignature, files: files, fileSignature: fileSignature,
                          filesCheckedAt: now, defaults: defaults, catalog: catalog, generation: 0, lookedAt: now)
        return (read, true)
    }

    /// A watch on what `looked` saw, made after the look and then checked
    /// against it: a change before the watch was made shows in the second
    /// look, one after it in the watch. `nil` when inotify cannot be had.
    /// It watches the previous-defaults record too, for `previousDefaults()`.
    private func watch(after looked: Cached) -> PathWatch? {
        guard watching, let watch = PathWatch(paths: looked.directories + defaultsPaths + [previousDefaultsFile.path]),
              FileSystem.signature(of: looked.directories) == looked.directorySignature, looked.defaults.isCurrent
        else { return nil }
        return watch
    }

    /// `watch(after:)` on the last look, as a lookup would make it now; for tests.
    func watchAfterTheLastLook() -> PathWatch? {
        cache.withLock { $0 }.flatMap(watch(after:))
    }

    /// The aliases of the MIME database (the first directory naming an alias wins).
    private func loadAliases() -> [String: String] {
        MimeGlobs(directories: aliasesPaths.map { (globs2: nil, aliases: (try? FileSystem.read($0)) ?? nil, subclasses: nil) }).aliases
    }

    private static func mimeAppsPaths(base: BaseDirectories, currentDesktop: String?) -> [(path: String, isDesktopSpecific: Bool, scope: Int)] {
        let names = MimeAppsList.fileNames(currentDesktop: currentDesktop)
        var directories: [(String, Int)] = [(base.configHome, 0)] + base.configDirs.map { ($0, 0) }
        directories.append((base.dataHome + "/applications", 0))
        for (index, dir) in base.dataDirs.enumerated() { directories.append((dir + "/applications", index + 1)) }
        return directories.flatMap { directory, scope in
            names.map { (directory.trimmingSlash + "/" + $0.name, $0.isDesktopSpecific, scope) }
        }
    }

    private func loadLevels() throws(ResourceExhausted) -> [MimeAppsList] {
        var levels: [MimeAppsList] = []
        for (path, isDesktopSpecific, scope) in mimeAppsPaths {
            guard let text = try FileSystem.read(path), let keyFile = try? KeyFile(parsing: text) else { continue }
            var list = MimeAppsList(keyFile, isDesktopSpecific: isDesktopSpecific, scope: scope)
            if quirks.contains(.dataHomeRemovalsSkipOwnDirectory), path.hasPrefix(base.dataHome.trimmingSlash + "/applications/") {
                list.removalScope = 1
            }
            levels.append(list)
        }
        return levels
    }

    /// Desktop files below each applications directory, with their IDs.
    /// Each directory is listed once, however many paths (symlinks) lead to
    /// it: `loop -> .` links would otherwise multiply the walk by their number
    /// at every level.
    func scan() throws(ResourceExhausted) -> (files: [DesktopFile], directories: [String]) {
        var files: [DesktopFile] = []
        var directories: [String] = []
        var visited = Set<FileSystem.Identity>()
        for (index, root) in base.applicationDirectories.enumerated() {
            var pending: [(String, Int)] = [("", 0)]
            while let (relative, depth) = pending.popLast() {
                let directory = relative.isEmpty ? root : root + "/" + relative
                directories.append(directory)
                // A directory met again (through a symlink, or listed twice in
                // XDG_DATA_DIRS) is not listed again; a missing one is still
                // recorded, so that creating it is noticed.
                if let identity = FileSystem.identity(directory), !visited.insert(identity).inserted { continue }
                for (name, isDirectory) in try FileSystem.list(directory) {
                    let child = relative.isEmpty ? name : relative + "/" + name
                    if isDirectory {
                        if depth < 8 { pending.append((child, depth + 1)) }  // bounded: symlink loops exist
                    } else if name.hasSuffix(".desktop") {
                        files.append((desktopFileID(relativePath: child), root + "/" + child, index))
                    }
                }
            }
        }
        return (files, directories)
    }

    private func loadEntries(_ files: [DesktopFile]) throws(ResourceExhausted)
        -> [String: ApplicationCatalog.Installed]
    {
        var seen = Set<String>()
        var entries: [String: ApplicationCatalog.Installed] = [:]
        for file in files.sorted(by: { ($0.directoryIndex, $0.path) < ($1.directoryIndex, $1.path) }) {
            // The first file with an ID decides, even when it is Hidden or broken:
            // a user's Hidden=true copy removes the system's entry.
            guard seen.insert(file.id).inserted else { continue }
            guard let text = try FileSystem.read(file.path), let keyFile = try? KeyFile(parsing: text),
                var entry = DesktopEntry(id: file.id, path: file.path, keyFile: keyFile)
            else { continue }
            if entry.hidden {
                guard quirks.contains(.hiddenEntriesExist) else { continue }
                entry = entry.unhidden
            }
            if quirks.contains(.unusableEntriesDoNotShadow), !isLoadableByGLib(entry) {
                seen.remove(file.id)
                continue
            }
            entries[file.id] = .init(entry: entry, directoryIndex: file.directoryIndex)
        }
        return entries
    }

    private func isLoadableByGLib(_ entry: DesktopEntry) -> Bool {
        if let tryExec = entry.tryExec, findExecutable(tryExec, path: path) == nil { return false }
        guard let exec = entry.exec, let line = try? ExecLine(exec) else { return true }
        return findExecutable(line.program, path: path) != nil
    }

    /// How the catalog sees this system: programs on `PATH`, and the dispatcher.
    public static func system(path: String?) -> ApplicationCatalog.System {
        ApplicationCatalog.System(
            resolve: { program in findExecutable(program, path: path).flatMap(FileSystem.realPath) },
            isDispatcher: { entry, resolved in
                if entry.id == DispatcherAPI.desktopID { return true }
                if entry.dbusActivatable && entry.busName == DispatcherAPI.busName.rawValue { return true }
                // The last component, found by byte from the end (a resolved
                // path has no trailing slash): every fallback asks this of its
                // application, and splitting the whole path cost it 7 500 instructions.
                guard let resolved else { return false }
                let bytes = resolved.utf8
                let name = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes[bytes.index(after: $0)...] } ?? bytes[...]
                return name.elementsEqual("openurl".utf8) || name.elementsEqual("openurld".utf8)
            })
    }

}
