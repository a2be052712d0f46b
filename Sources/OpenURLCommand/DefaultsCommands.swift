import Desktop
import Router
import DispatcherAPI
import FileAccess
import Glibc
import XDG

/// `default`, `set-default`, `unset-default`.
struct DefaultsCommands {
    let environment: [String: String]
    static let dispatcherID = "org.openurld.Dispatcher1.desktop"

    func show(_ schemes: [String]) -> ExitStatus {
        guard let catalog = readCatalog() else { return .rejected }
        let system = DesktopDatabase.system(path: environment["PATH"])
        let rows = schemes.map { scheme in
            [scheme, catalog.fallbackApplication(forScheme: scheme, system: system)?.entry.id ?? "(none)"]
        }
        Console.out(table(rows))
        return .accepted
    }

    /// Makes the dispatcher the default for `types` (or undoes it), then
    /// prints each change.
    func set(_ types: [String], makeDefault: Bool) -> ExitStatus {
        let base = BaseDirectories(environment: environment)
        let path = base.configHome + "/mimeapps.list"
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
                guard let catalog = readCatalog() else { failure = ""; return nil }
                if makeDefault, let problem = installationProblem(base, catalog) {
                    throw EditError(problem + "; \(path) not changed")
                }
                let system = DesktopDatabase.system(path: environment["PATH"])
                for type in types {
                    let previous = catalog.defaultApplication(for: type, system: system)?.id
                    let before = editor.defaults(for: type)?.first ?? previous
                    if makeDefault {
                        editor.makeDefault(Self.dispatcherID, for: type, previous: previous)
                    } else {
                        editor.removeDefault(Self.dispatcherID, for: type)
                    }
                    let after = editor.defaults(for: type)?.first
                    let label = type.hasPrefix("x-scheme-handler/") ? String(type.dropFirst(17)) : type
                    let fallback = previous.map { " (\($0) kept as fallback)" } ?? " (no other application for it: such URLs will be rejected)"
                    switch (makeDefault, before == after) {
                    case (true, true): report += "\(label): already \(Self.dispatcherID)\(fallback)\n"
                    case (true, false): report += "\(label): \(before ?? "(none)") → \(Self.dispatcherID)\(fallback)\n"
                    case (false, true): report += "\(label): unchanged (\(before ?? "no default"))\n"
                    case (false, false): report += "\(label): \(Self.dispatcherID) → \(after ?? previous ?? "(none)")\n"
                    }
                }
                return editor.text == original ? nil : editor.text
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
        guard catalog.entries[Self.dispatcherID] != nil else {
            return "\(Self.dispatcherID) is not installed in any applications directory ("
                + dataDirectories.map { $0 + "/applications" }.joined(separator: ", ")
                + "), so desktops would ignore it as a default; install openurld first (make install-user, or the package)"
        }
        let service = "dbus-1/services/" + DispatcherAPI.busName.rawValue + ".service"
        guard dataDirectories.contains(where: { FileSystem.exists($0 + "/" + service) }) else {
            return "\(Self.dispatcherID) is installed, but \(DispatcherAPI.busName.rawValue).service is in none of "
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

    /// The XDG catalog, or `nil` after saying why it could not be read.
    func readCatalog() -> ApplicationCatalog? {
        do {
            return try DesktopDatabase(environment: environment).catalog()
        } catch {
            Console.error("cannot read the application directories: \(error)")
            return nil
        }
    }
}

