import Glibc
import SafeText
import Posix

/// A file could not be written; the message is `strerror`'s.
public struct WriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(errno code: Int32) { description = String(cString: strerror(code)) }
}

extension FileSystem {
    /// Writes a temporary file beside `path`, flushes it, then renames it over
    /// `path`: readers see the old file or the new one, never half of one.
    /// Missing parent directories are made (mode 0700); an existing file's
    /// mode is kept.
    public static func replace(_ path: String, with text: String) throws(WriteError) {
        try replace(path, bytes: Array(text.utf8))
    }

    /// `replace(_:with:)` for bytes.
    static func replace(_ path: String, bytes content: [UInt8]) throws(WriteError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty { makeDirectories(directory) }
        var mode: mode_t = 0o644
        var info = stat()
        if EscapedBytes.withCString(path, { stat($0, &info) }) == 0 { mode = info.st_mode & 0o7777 }
        let temporary = path + ".openurl-\(getpid())"
        let fd = EscapedBytes.withCString(temporary) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw WriteError(errno: errno) }
        do {
            try FileDescriptor(fd).writeAll(content)
        } catch {
            close(fd)
            _ = EscapedBytes.withCString(temporary) { unlink($0) }
            throw WriteError(errno: error.rawValue)
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, EscapedBytes.withCString(temporary, { from in EscapedBytes.withCString(path) { rename(from, $0) } }) == 0 else {
            let code = errno
            _ = EscapedBytes.withCString(temporary) { unlink($0) }
            throw WriteError(errno: code)
        }
    }

    /// `mkdir -p` with mode 0700 for the directories it makes.
    public static func makeDirectories(_ path: String) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + part
            _ = EscapedBytes.withCString(prefix) { mkdir($0, 0o700) }
        }
    }
}
