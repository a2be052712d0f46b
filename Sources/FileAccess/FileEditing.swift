import Glibc
import Posix
import SafeText

/// Why a file was not edited; nothing was changed.
public struct EditError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    /// A refusal described by `description`.
    public init(_ description: String) { self.description = description }
}

extension FileSystem {
    /// Edits the file at `path` as one step that loses nothing: the way every
    /// file openurld rewrites (`remembered.rules`, `mimeapps.list`) is changed.
    ///
    /// - One edit at a time across processes: the daemon, `openurl` and the
    ///   preferences window each hold an exclusive `flock` on the file's
    ///   directory while they read, change and write (waiting at most 2 s).
    /// - A symlink (a dotfile manager's) is written through: its target is
    ///   replaced atomically, in the target's directory, and the link stays.
    /// - A file that exists but cannot be read whole (over the 1 MiB limit,
    ///   not a regular file, unreadable) is refused, never taken for empty.
    /// - Bytes that are not UTF-8 survive: `change` sees each as its
    ///   `EscapedBytes` scalar, written back as that byte.
    ///
    /// - Parameter change: the new text from the old (`nil` when there is no
    ///   file); returning `nil` writes nothing.
    public static func edit(_ path: String, _ change: (String?) throws(EditError) -> String?) throws(EditError) {
        let target = resolvingSymlinks(path)
        let directory = String(target[..<(target.lastIndex(of: "/") ?? target.startIndex)])
        if !directory.isEmpty { makeDirectories(directory) }
        let lock = try lockDirectory(directory.isEmpty ? "." : directory, for: path)
        defer { close(lock) }
        let old = try readWhole(target, shownAs: path)
        let text: String?
        if let old {
            text = EscapedBytes.decode(old)
        } else {
            text = nil
        }
        guard let new = try change(text), new != text else { return }
        do {
            try replace(target, bytes: EscapedBytes.encode(new))
        } catch {
            let what = target == path ? path : "\(target) (where \(path) links to)"
            throw EditError("cannot write \(what): \(error.description); not changed")
        }
    }

    /// Follows symbolic links at `path` (at most 40), relative ones from their own directory.
    static func resolvingSymlinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = EscapedBytes.withCString(current) { readlink($0, &buffer, buffer.count - 1) }
            guard n > 0 else { return current }
            let link = EscapedBytes.decode(buffer[..<n].map { UInt8(bitPattern: $0) })
            if link.hasPrefix("/") {
                current = link
            } else {
                current = String(current[..<(current.lastIndex(of: "/").map { current.index(after: $0) } ?? current.startIndex)]) + link
            }
        }
        return current
    }

    private static func lockDirectory(_ directory: String, for path: String) throws(EditError) -> Int32 {
        let fd = EscapedBytes.withCString(directory) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw EditError("cannot open \(directory) to edit \(path): \(String(cString: strerror(errno)))") }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        while retryingOnInterrupt({ flock(fd, LOCK_EX | LOCK_NB) }) != 0 {
            guard errno == EWOULDBLOCK, clock.now < deadline else {
                close(fd)
                throw EditError("\(path) is being edited by another program; not changed (try again)")
            }
            usleep(1000)
        }
        return fd
    }

    /// The file's bytes; `nil` when there is no file; an error when there is one that cannot be read whole.
    private static func readWhole(_ path: String, shownAs shown: String) throws(EditError) -> [UInt8]? {
        let fd = EscapedBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw EditError("cannot read \(shown): \(String(cString: strerror(errno))); not changed")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw EditError("\(shown) is not a regular file; not changed")
        }
        guard info.st_size <= maximumFileSize else {
            throw EditError("\(shown) is \(info.st_size) bytes, over the 1 MiB (\(maximumFileSize) bytes) openurld reads; not changed")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n: Int
            do { n = try FileDescriptor(fd).read(into: &chunk) } catch { throw EditError("cannot read \(shown): \(error); not changed") }
            guard n > 0 else { break }
            bytes += chunk[..<n]
            guard bytes.count <= maximumFileSize else {
                throw EditError("\(shown) is over the 1 MiB (\(maximumFileSize) bytes) openurld reads; not changed")
            }
        }
        return bytes
    }
}
