import Desktop
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
            [scheme, catalog.defaultApplication(for: "x-scheme-handler/" + scheme, system: system)?.id ?? "(none)"]
        }
        Console.out(table(rows))
        return .accepted
    }

    /// Makes the dispatcher the default for `types` (or undoes it), then
    /// prints each change.
    func set(_ types: [String], makeDefault: Bool) -> ExitStatus {
        let base = BaseDirectories(environment: environment)
        let path = base.configHome + "/mimeapps.list"
        // A missing file is empty; one that exists but cannot be read (or is
        // over the size limit) is never replaced.
        let original: String
        if let text = try? FileSystem.read(path) {
            original = text
        } else if !FileSystem.exists(path) {
            original = ""
        } else {
            Console.error("\(path): cannot be read (or is larger than 1 MiB); not changed")
            return .rejected
        }
        var editor: MimeAppsEditor
        do {
            editor = try MimeAppsEditor(original)
        } catch {
            Console.error("\(path): \(error); not changed")
            return .rejected
        }
        guard let catalog = readCatalog() else { return .rejected }
        if makeDefault, let problem = installationProblem(base, catalog) {
            Console.error(problem + "; \(path) not changed")
            return .rejected
        }
        let system = DesktopDatabase.system(path: environment["PATH"])
        var report = ""
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
        if editor.text != original {
            do {
                try writeAtomically(editor.text, to: path)
            } catch {
                Console.error("cannot write \(path): \(error.description)")
                return .rejected
            }
        }
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
        let found: [(target: Target, name: String)]
        do {
            found = try DesktopDatabase(environment: environment).targets(for: scheme, system: DesktopDatabase.system(path: environment["PATH"]))
        } catch {
            Console.error("cannot read the application directories: \(error)")
            return .rejected
        }
        func kind(_ target: Target) -> String {
            switch target {
            case .application: "application"
            case .action: "action"
            case .profile: "profile"
            }
        }
        if json {
            Console.out(JSON.array(found.map {
                JSON.object([("target", JSON.string($0.target.description)), ("name", JSON.string($0.name)), ("kind", JSON.string(kind($0.target)))])
            }) + "\n")
            return found.isEmpty ? .rejected : .accepted
        }
        guard !found.isEmpty else {
            Console.out("no application is set up for \(scheme): URLs\n")
            return .rejected
        }
        Console.out(table([["TARGET", "KIND", "NAME"]] + found.map { [$0.target.description, kind($0.target), $0.name] }))
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

struct WriteError: Error, CustomStringConvertible {
    let description: String
}

/// Writes a temporary file beside `path`, flushes it, then renames it over
/// `path`: readers see the old file or the new one, never half of one.
func writeAtomically(_ text: String, to path: String) throws(WriteError) {
    let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    if !directory.isEmpty { mkdir(directory, 0o700) }
    var mode: mode_t = 0o644
    var info = stat()
    if stat(path, &info) == 0 { mode = info.st_mode & 0o7777 }
    let temporary = path + ".openurl-\(getpid())"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw WriteError(description: String(cString: strerror(errno))) }
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(temporary)
            throw WriteError(description: reason)
        }
        bytes = bytes.dropFirst(n)
    }
    let synced = fsync(fd) == 0
    close(fd)
    guard synced, rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw WriteError(description: reason)
    }
}
