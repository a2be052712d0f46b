import Desktop
import Router
import DispatcherAPI
import FileAccess
import Glibc
import Routing
import XDG

/// `default`, `set-default`, `unset-default`.
struct DefaultsCommands {
    let environment: [String: String]

    /// What `default` is asked about.
    enum Subject: Equatable, Sendable {
        case scheme(String)
        case type(String)
        /// A path as given, and its `file:` URL.
        case file(String, ValidatedURL)
    }

    /// Each subject's fallback application, and where that answer came from:
    /// for a file, its type and what decided it (a glob, the contents, the
    /// text check) and whose default the application is. Opens nothing.
    /// - Returns: `rejected` when a file would not be opened at all (missing, another host's, runnable).
    func show(_ subjects: [Subject]) -> ExitStatus {
        let database = DesktopDatabase(environment: environment)
        let system = DesktopDatabase.system(path: environment["PATH"])
        let opener = DesktopURLOpener(environment: environment, connection: nil, reaper: ChildReaper())
        var rows: [[String]] = []
        var status = ExitStatus.accepted
        for subject in subjects {
            switch subject {
            case .scheme(let scheme):
                let found: (entry: DesktopEntry, reason: ApplicationCatalog.FallbackReason)?
                do { found = try database.fallbackApplication(forScheme: scheme, system: system) } catch {
                    Console.error("cannot read the application directories: \(error)")
                    return .rejected
                }
                rows.append([scheme, found?.entry.id ?? "(none)", found.map { "(" + $0.reason.rawValue + ")" } ?? ""])
            case .type(let type):
                let found: DesktopURLOpener.TypeApplication?
                do { found = try opener.application(forType: type) } catch {
                    Console.error("cannot read the application directories: \(error)")
                    return .rejected
                }
                rows.append([type, found?.entry.id ?? "(none)", found.map { "(" + $0.explanation + ")" } ?? "(nothing claims it)"])
            case .file(let path, let url):
                do {
                    let (file, found) = try opener.application(forFile: url)
                    let typed = "\(file.mimeType): " + (file.typing?.explanation ?? "\(file.path) is no regular file")
                    let why = found.map(\.explanation) ?? "nothing claims \(file.mimeType)"
                    rows.append([path, found?.entry.id ?? "(none)", "(\(typed); \(why))"])
                } catch {
                    rows.append([path, "(refused)", "(\(error.reason))"])
                    status = .rejected
                }
            }
        }
        Console.out(table(rows))
        return status
    }

    /// Makes the dispatcher the default for `types` (or undoes it), then
    /// prints each change. Making it the default records the application it
    /// replaces (or `fallback`) as the one behind it; undoing it puts that
    /// application back where the dispatcher leaves a type with no default.
    func set(_ types: [String], makeDefault: Bool, fallback: String?) -> ExitStatus {
        let base = BaseDirectories(environment: environment)
        let path = base.configHome + "/mimeapps.list"
        let database = DesktopDatabase(environment: environment)
        let system = DesktopDatabase.system(path: environment["PATH"])
        let recordFile = PreviousDefaultsFile(base: base)
        var record = database.previousDefaults()
        // Edited as FileSystem.edit edits: one edit at a time across processes,
        // through a symlink, never over a file it could not read whole, and
        // keeping every byte of the lines it does not change.
        var report = ""
        var failure: String?
        do {
            try FileSystem.edit(path) { (text: String?) throws(EditError) -> String? in
                let original = text ?? ""
                var editor: MimeAppsEditor
                do {
                    editor = try MimeAppsEditor(original)
                } catch {
                    throw EditError("\(path): \(error); not changed")
                }
                let catalog: ApplicationCatalog
                do { catalog = try database.catalog() } catch {
                    Console.error("cannot read the application directories: \(error)")
                    failure = ""
                    return nil
                }
                if makeDefault, let problem = installationProblem(base, catalog) {
                    throw EditError(problem + "; \(path) not changed")
                }
                if makeDefault, let fallback, catalog.entries[fallback].map({ !catalog.isUsable($0.entry, system: system) }) ?? true {
                    throw EditError("\(fallback) is not installed, is hidden, cannot be run, or is openurld itself; \(path) not changed")
                }
                for type in types {
                    let previous = catalog.defaultApplication(for: type, system: system)?.id
                    if makeDefault, PreviousDefaults.isRecorded(type) {
                        // The default being replaced, unless it is the dispatcher already.
                        if let current = catalog.currentDefault(for: type, system: system), !catalog.isDispatcher(current, system: system) {
                            record[type] = current.id
                        }
                        if let fallback { record[type] = fallback }
                    }
                    let before = editor.defaults(for: type)?.first ?? previous
                    if makeDefault {
                        editor.makeDefault(DispatcherAPI.desktopID, for: type, previous: previous)
                    } else {
                        let hadDispatcher = editor.defaults(for: type)?.contains(DispatcherAPI.desktopID) ?? false
                        editor.removeDefault(DispatcherAPI.desktopID, for: type)
                        // Leaving a type with no default would hand it to whatever claims it first.
                        if hadDispatcher, editor.defaults(for: type) == nil, let id = record[type], let entry = catalog.entries[id]?.entry,
                           catalog.isUsable(entry, system: system) {
                            editor.makeDefault(id, for: type, previous: nil)
                        }
                    }
                    let after = editor.defaults(for: type)?.first
                    let label = type.hasPrefix("x-scheme-handler/") ? String(type.dropFirst(17)) : type
                    let behind = record[type] ?? previous
                    let kept = behind.map { " (\($0) kept as fallback)" } ?? " (no other application for it: such URLs will be rejected)"
                    switch (makeDefault, before == after) {
                    case (true, true): report += "\(label): already \(DispatcherAPI.desktopID)\(kept)\n"
                    case (true, false): report += "\(label): \(before ?? "(none)") → \(DispatcherAPI.desktopID)\(kept)\n"
                    case (false, true): report += "\(label): unchanged (\(before ?? "no default"))\n"
                    case (false, false): report += "\(label): \(DispatcherAPI.desktopID) → \(after ?? previous ?? "(none)")\n"
                    }
                }
                return editor.text == original ? nil : editor.text
            }
            let kde = KDEBrowserSetting(base: base, environment: environment)
            if failure == nil, makeDefault {
                // KDE's own setting names the browser when mimeapps.list had none to keep.
                if let browser = kde.browserID, browser != DispatcherAPI.desktopID, types.contains("x-scheme-handler/https") {
                    for type in Defaults.webSchemes.map({ "x-scheme-handler/" + $0 }) where record[type] == nil { record[type] = browser }
                }
                try recordFile.store(record, types: types)
            }
            if failure == nil, types.contains("x-scheme-handler/https") {
                report += try kde.follow(makeDefault: makeDefault, record: record)
            }
        } catch {
            Console.error(error.description)
            return .rejected
        }
        if failure != nil { return .rejected }
        Console.out(report)
        return .accepted
    }

    /// Why desktops would not take the dispatcher as a default, or `nil`:
    /// its desktop file must be in an applications directory (GIO, KDE and
    /// xdg-open ignore defaults naming a file they cannot find), and since
    /// the file is `DBusActivatable`, its D-Bus service file must be where
    /// the session bus looks for services.
    func installationProblem(_ base: BaseDirectories, _ catalog: ApplicationCatalog) -> String? {
        let dataDirectories = [base.dataHome] + base.dataDirs
        guard catalog.entries[DispatcherAPI.desktopID] != nil else {
            return "\(DispatcherAPI.desktopID) is not installed in any applications directory ("
                + dataDirectories.map { $0 + "/applications" }.joined(separator: ", ")
                + "), so desktops would ignore it as a default; install openurld first (make install-user, or the package)"
        }
        let service = "dbus-1/services/" + DispatcherAPI.busName.rawValue + ".service"
        guard dataDirectories.contains(where: { FileSystem.exists($0 + "/" + service) }) else {
            return "\(DispatcherAPI.desktopID) is installed, but \(DispatcherAPI.busName.rawValue).service is in none of "
                + dataDirectories.map { $0 + "/dbus-1/services" }.joined(separator: ", ")
                + ", so the session bus could not start openurld for a link; install openurld first (make install-user, or the package)"
        }
        return nil
    }
}

extension DefaultsCommands {
    /// `openurl targets`: where a URL of `scheme` can be sent, as rules'
    /// `Open=` writes it: applications, their actions, browser profiles.
    func targets(_ scheme: String, json: Bool) -> ExitStatus {
        let found: [ChooserCandidate]
        do {
            found = try DesktopDatabase(environment: environment).targets(for: scheme, system: DesktopDatabase.system(path: environment["PATH"]))
        } catch {
            Console.error("cannot read the application directories: \(error)")
            return .rejected
        }
        if json {
            Console.out(JSON.array(found.map {
                JSON.object([("target", JSON.string($0.target.description)), ("name", JSON.string($0.name)), ("kind", JSON.string($0.kind.rawValue))])
            }) + "\n")
            return found.isEmpty ? .rejected : .accepted
        }
        guard !found.isEmpty else {
            Console.out("no application is set up for \(scheme): URLs\n")
            return .rejected
        }
        Console.out(table([["TARGET", "KIND", "NAME"]] + found.map { [$0.target.description, $0.kind.rawValue, $0.name] }))
        return .accepted
    }
}

