import Desktop
import Glibc

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

    func set(_ schemes: [String], makeDefault: Bool) -> ExitStatus {
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
        let system = DesktopDatabase.system(path: environment["PATH"])
        for scheme in schemes {
            let mime = "x-scheme-handler/" + scheme
            if makeDefault {
                let previous = catalog.defaultApplication(for: mime, system: system)?.id
                editor.makeDefault(Self.dispatcherID, for: mime, previous: previous)
            } else {
                editor.removeDefault(Self.dispatcherID, for: mime)
            }
        }
        guard editor.text != original else { return .accepted }
        do {
            try writeAtomically(editor.text, to: path)
        } catch {
            Console.error("cannot write \(path): \(error.description)")
            return .rejected
        }
        return .accepted
    }
}

extension DefaultsCommands {
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
