import FileAccess
import Router
import XDG
import DBus
import Routing

/// The desktop's default application for a URL's scheme, as `xdg-open` and
/// GIO pick it, never the dispatcher itself.
public final class DesktopURLOpener: URLOpener {
    private let database: DesktopDatabase
    private let system: ApplicationCatalog.System
    private let launcher: Launcher
    private let warn: @Sendable (String) -> Void
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - environment: where the XDG directories, `PATH` and `XDG_CURRENT_DESKTOP` come from.
    ///   - connection: the session bus, for activation and systemd scopes (`nil` when there is none).
    ///   - warn, inform: where problems, and changes to the record, are logged.
    public init(environment: [String: String], connection: Connection?, reaper: ChildReaper,
                warn: @escaping @Sendable (String) -> Void = { _ in }, inform: @escaping @Sendable (String) -> Void = { _ in }) {
        database = DesktopDatabase(environment: environment)
        system = DesktopDatabase.system(path: environment["PATH"])
        launcher = Launcher(environment: environment, connection: connection, reaper: reaper, warn: warn)
        self.warn = warn
        log = inform
    }

    /// Every `mimeapps.list` the defaults are read from.
    public var defaultsFiles: [(directory: String, name: String)] {
        database.mimeAppsPaths.map { file in
            let slash = file.path.lastIndex(of: "/")!
            return (String(file.path[..<slash]), String(file.path[file.path.index(after: slash)...]))
        }
    }

    /// Records, per type, the default that is not the dispatcher
    /// (`PreviousDefaultsFile`), so that the application before it is kept
    /// whichever tool made the dispatcher the default. The daemon calls it
    /// when it starts and whenever a `mimeapps.list` changes; every fallback
    /// does too.
    public func defaultsChanged() {
        guard let (catalog, generation) = try? database.generationalCatalog() else { return }
        let changed = recordPreviousDefaults(catalog, generation)
        if !changed.isEmpty { log("recorded the previous default for \(changed.joined(separator: ", "))") }
    }

    private func recordPreviousDefaults(_ catalog: ApplicationCatalog, _ generation: Int) -> [String] {
        do {
            return try database.recordPreviousDefaults(observing: catalog, generation: generation, system: system)
        } catch {
            warn("cannot record the previous defaults: \(error.description)")
            return []
        }
    }

    /// The desktop-file ID the defaults name for `url` (its scheme, or a file's type).
    public func application(for url: ValidatedURL) -> String? {
        let mime = url.scheme == "file" ? MimeDatabase.load(database.base) : nil
        guard let admitted = try? admit(url, mime: mime) else { return nil }
        if let file = admitted.file, let mime { return (try? entry(forType: file.mimeType, globs: mime.globs))?.id }
        return (try? entry(for: url))?.id
    }

    /// Every launch below starts here. `mime`: the MIME database, when the caller has read it already.
    private func admit(_ url: ValidatedURL, mime: MimeDatabase? = nil) throws(LaunchGate.Refusal) -> AdmittedURL {
        try LaunchGate.admit(url, mime: mime ?? MimeDatabase.load(database.base))
    }

    /// Why `LaunchGate` refuses `url` from its scheme alone; `open` refuses it with the same words.
    public func refusal(of url: ValidatedURL) -> String? { LaunchGate.refusal(of: url) }

    /// Opens `url` with the default application, after `LaunchGate` admits it.
    public func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult {
        let mime = url.scheme == "file" ? MimeDatabase.load(database.base) : nil
        let admitted: AdmittedURL
        do { admitted = try admit(url, mime: mime) } catch { return .refused(reason: error.reason) }
        if let file = admitted.file, let mime {
            return await open(admitted, file: file, globs: mime.globs, activationToken: activationToken)
        }
        let found: DesktopEntry?
        do {
            found = try entry(for: url)
        } catch {
            return .launchFailed(application: nil, reason: "cannot read the application directories: \(error)")
        }
        guard let entry = found else {
            return .noApplication(reason: "no application is set up for x-scheme-handler/\(url.scheme)")
        }
        return await launch(admitted, with: entry, activationToken: activationToken)
    }

    /// Opens `url` with a target (`Open=`): an application, one of its
    /// desktop actions (`id:action`), or a browser profile (`id@profile`).
    public func open(_ url: ValidatedURL, with target: Target, activationToken: String?) async -> LaunchResult {
        let admitted: AdmittedURL
        do { admitted = try admit(url) } catch { return .refused(reason: error.reason) }
        let id = target.applicationID
        let catalog: ApplicationCatalog
        do { catalog = try database.catalog() } catch {
            return .launchFailed(application: id, reason: "cannot read the application directories: \(error)")
        }
        guard var entry = catalog.entries[id]?.entry, catalog.isUsable(entry, system: system) else {
            // isUsable also refuses the dispatcher itself: opening with it would loop.
            return .noApplication(reason: "\(id) is not installed, is hidden, cannot be run, or is openurld itself")
        }
        var options: [String] = []
        switch target {
        case .application: break
        case .action(_, let action):
            guard let performing = entry.performing(action) else {
                return .noApplication(reason: "\(id) has no desktop action '\(action)' with an Exec line")
            }
            entry = performing
        case .profile(_, let name):
            guard let profile = database.profiles(of: id).first(where: { $0.name == name }) else {
                return .noApplication(reason: "\(id) has no profile '\(name)' (openurl targets lists them)")
            }
            options = profile.arguments
        }
        do {
            try await launcher.open(admitted, with: entry, options: options, activationToken: activationToken)
            return .opened(application: target.description)
        } catch {
            return .launchFailed(application: target.description, reason: error.reason)
        }
    }

    /// The targets set up for `url`'s scheme, or `wanted` as far as each is installed.
    public func candidates(for url: ValidatedURL, offering wanted: [Target]) -> [ChooserCandidate] {
        guard LaunchGate.refusal(of: url) == nil, url.scheme != "file" else { return [] }
        guard !wanted.isEmpty else { return (try? database.targets(for: url.scheme, system: system)) ?? [] }
        guard let catalog = try? database.catalog() else { return [] }
        // The listed targets whose application is installed, named as `openurl targets` names them.
        return wanted.compactMap { target in
            guard let entry = catalog.entries[target.applicationID]?.entry, catalog.isUsable(entry, system: system) else { return nil }
            let icon = entry.icon ?? ""
            switch target {
            case .application:
                return ChooserCandidate(target: target, name: entry.name, icon: icon)
            case .action(_, let id):
                guard let action = entry.actions.first(where: { $0.id == id && $0.exec != nil }) else { return nil }
                return ChooserCandidate(target: target, name: entry.name + ": " + action.name, icon: icon)
            case .profile(let application, let name):
                guard database.profiles(of: application).contains(where: { $0.name == name }) else { return nil }
                return ChooserCandidate(target: target, name: entry.name + " (" + name + ")", icon: icon)
            }
        }
    }

    /// Runs `commandLine` (Exec syntax, no shell) with `url`, as `name` in the logs.
    public func run(_ commandLine: String, with url: ValidatedURL, name: String, activationToken: String?) async -> LaunchResult {
        let admitted: AdmittedURL
        do { admitted = try admit(url) } catch { return .refused(reason: error.reason) }
        return await launch(admitted, with: DesktopEntry(id: name, commandLine: commandLine), activationToken: activationToken)
    }

    private func launch(_ admitted: AdmittedURL, with entry: DesktopEntry, activationToken: String?) async -> LaunchResult {
        do {
            try await launcher.open(admitted, with: entry, activationToken: activationToken)
            return .opened(application: entry.id)
        } catch {
            return .launchFailed(application: entry.id, reason: error.reason)
        }
    }

    private func entry(for url: ValidatedURL) throws(ResourceExhausted) -> DesktopEntry? {
        // One read of the tree for both: each read checks every directory and mimeapps.list.
        let (catalog, generation) = try database.generationalCatalog()
        _ = recordPreviousDefaults(catalog, generation)
        return catalog.fallbackApplication(forScheme: url.scheme, system: system, previous: database.previousDefaults())?.entry
    }

    /// A `file:` URL goes to the default application for the file's MIME
    /// type (or the nearest of its parent types that has one), as GIO and
    /// xdg-open open files; the dispatcher itself is never chosen, even when
    /// it is the default for `text/html`.
    private func open(_ admitted: AdmittedURL, file: LocalFile, globs: MimeGlobs, activationToken: String?) async -> LaunchResult {
        let found: DesktopEntry?
        do { found = try entry(forType: file.mimeType, globs: globs) } catch {
            return .launchFailed(application: nil, reason: "cannot read the application directories: \(error)")
        }
        guard let entry = found else { return .noApplication(reason: "no application is set up for \(file.mimeType) (\(file.path))") }
        return await launch(admitted, with: entry, activationToken: activationToken)
    }

    private func entry(forType mimeType: String, globs: MimeGlobs) throws(ResourceExhausted) -> DesktopEntry? {
        try application(forType: mimeType, globs: globs)?.entry
    }

    /// The application for `mimeType`: the default of the type or, failing
    /// that, of its nearest parent type that has one; with that type and
    /// whether a default line named it.
    private func application(forType mimeType: String, globs: MimeGlobs) throws(ResourceExhausted) -> TypeApplication? {
        let catalog = try database.catalog()
        return globs.lineage(of: mimeType).lazy.compactMap { type in
            catalog.defaultApplicationAndWhy(for: type, system: self.system).map {
                TypeApplication(entry: $0.entry, asked: globs.canonical(mimeType), type: type, isExplicitDefault: $0.isExplicitDefault)
            }
        }.first
    }

    /// What opens files of a type, and why, as `openurl default TYPE|PATH` says it.
    public struct TypeApplication: Sendable, Equatable {
        /// The application.
        public let entry: DesktopEntry
        /// The type asked about, aliases resolved.
        public let asked: String
        /// The type whose default it is: the one asked about, or a parent type.
        public let type: String
        /// Whether a `mimeapps.list` default names it (else: the most preferred application that claims the type).
        public let isExplicitDefault: Bool

        /// Where the answer came from, in words.
        public var explanation: String {
            let whose = type == asked ? type : "\(type), a parent type of \(asked)"
            return isExplicitDefault ? "the default for \(whose)" : "the first application that claims \(whose)"
        }
    }

    /// What would open files of `mimeType` (aliases resolved), and why; `nil` when nothing would.
    public func application(forType mimeType: String) throws(ResourceExhausted) -> TypeApplication? {
        let globs = MimeDatabase.load(database.base).globs
        return try application(forType: globs.canonical(mimeType), globs: globs)
    }

    /// What would open the file `url` names: the gate's verdict, the file
    /// (its type and what decided it), and the application, as `open` would
    /// find them, launching nothing.
    public func application(forFile url: ValidatedURL) throws(LaunchGate.Refusal) -> (file: LocalFile, application: TypeApplication?) {
        let mime = MimeDatabase.load(database.base)
        let admitted = try admit(url, mime: mime)
        guard let file = admitted.file else { throw LaunchGate.Refusal(reason: "\(url.redacted) is not a file: URL") }
        return (file, try? application(forType: file.mimeType, globs: mime.globs))
    }
}
