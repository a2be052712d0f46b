import Glibc
import Posix
import SafeText

/// The system ran out of something (descriptors, memory) while reading the
/// XDG tree: unlike a missing file, this says nothing about the tree.
public struct ResourceExhausted: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `errno` value (`EMFILE`, `ENFILE`, `ENOMEM`).
    public let code: Int32
    public var description: String { String(cString: strerror(code)) }

    /// Throws when `errno` reports exhaustion rather than absence.
    static func check(_ code: Int32) throws(ResourceExhausted) {
        if code == EMFILE || code == ENFILE || code == ENOMEM { throw ResourceExhausted(code: code) }
    }
}

/// Small, bounded file-system reads: the XDG loaders, `/proc`, `mimeapps.list`.
///
/// A path is bytes: every path here is handed to the kernel as the bytes
/// `EscapedBytes` says it stands for, and names read from a directory come
/// back the same way, so a name that is not UTF-8 (`caf\xE9.txt`) is
/// reached, not replaced by U+FFFD.
public enum FileSystem {
    /// Files larger than this are not configuration; they are skipped.
    public static let maximumFileSize = 1 << 20

    /// The file's text, or `nil` when it is missing, unreadable, not a regular
    /// file, or larger than `maximumFileSize`. Reads to the end of the file,
    /// so `/proc` files (whose size reads as 0) work too.
    /// - Throws: `ResourceExhausted` when the file could not be opened for lack of resources.
    public static func read(_ path: String) throws(ResourceExhausted) -> String? {
        try bytes(of: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The file's bytes, on the terms of `read` (a binary file: `mime/magic`).
    /// - Throws: `ResourceExhausted` when the file could not be opened for lack of resources.
    public static func bytes(of path: String) throws(ResourceExhausted) -> [UInt8]? {
        try reading(path) { fd in
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16384)
            while true {
                // A file that fails half-way is not read at all: half a file is not what it says.
                guard let n = try? fd.read(into: &chunk) else { return nil }
                guard n > 0 else { break }
                bytes += chunk[..<n]
                if bytes.count > maximumFileSize { return nil }
            }
            return bytes
        }
    }

    /// The first `count` bytes of a regular file (fewer when it is shorter),
    /// or `nil` when it is missing, unreadable or anything but a regular
    /// file. Whatever is not a regular file (a FIFO, a device, a socket) is
    /// never even opened, so reading cannot block or set off a device.
    /// - Throws: `ResourceExhausted` when the file could not be opened for lack of resources.
    public static func prefix(of path: String, count: Int) throws(ResourceExhausted) -> [UInt8]? {
        var info = stat()
        guard EscapedBytes.withCString(path, { stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return try reading(path) { fd in
            var bytes = [UInt8](repeating: 0, count: max(count, 0))
            var filled = 0
            while filled < bytes.count {
                let n: Int
                do {
                    n = try bytes.withUnsafeMutableBytes { buffer throws(Errno) in
                        try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                    }
                } catch { return nil }
                guard n > 0 else { break }
                filled += n
            }
            return Array(bytes.prefix(filled))
        }
    }

    /// Opens `path` for reading without blocking or taking a terminal, checks
    /// it is a regular file, and gives `body` the descriptor.
    private static func reading<T>(_ path: String, _ body: (FileDescriptor) -> T?) throws(ResourceExhausted) -> T? {
        let fd = EscapedBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
        guard fd >= 0 else {
            try ResourceExhausted.check(errno)
            return nil
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return body(FileDescriptor(fd))
    }

    /// Whether something exists at `path` (without following a final symlink's absence).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return EscapedBytes.withCString(path) { lstat($0, &info) } == 0
    }

    /// Names in a directory (no `.` and `..`); `[]` when it does not exist or cannot be read.
    /// - Throws: `ResourceExhausted` when it could not be opened for lack of resources.
    public static func list(_ directory: String) throws(ResourceExhausted) -> [(name: String, isDirectory: Bool)] {
        guard let handle = EscapedBytes.withCString(directory, { opendir($0) }) else {
            try ResourceExhausted.check(errno)
            return []
        }
        defer { closedir(handle) }
        var result: [(String, Bool)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                EscapedBytes.decode(raw.prefix { $0 != 0 })
            }
            guard name != ".", name != ".." else { continue }
            // The entry's type when the file system gives it; a symlink or an
            // unknown type costs a stat, which follows the link.
            let type = Int32(entry.pointee.d_type)
            let isDirectory: Bool
            if type == Int32(DT_DIR) || type == Int32(DT_REG) {
                isDirectory = type == Int32(DT_DIR)
            } else {
                var info = stat()
                isDirectory = EscapedBytes.withCString(directory + "/" + name, { stat($0, &info) }) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            result.append((name, isDirectory))
        }
        return result
    }

    /// What makes a directory the same directory whatever path reaches it.
    public struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// The device and inode of `path`, symlinks followed; `nil` when it does not exist.
    public static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard EscapedBytes.withCString(path, { stat($0, &info) }) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The modification time, size and inode of a path (`[-1]` when it
    /// cannot be read), for cache validation.
    package static func signature(_ path: String) -> [Int] {
        var signature: [Int] = []
        appendSignature(of: path, to: &signature)
        return signature
    }

    /// The signatures of `paths` one after another, in one array (one
    /// allocation, where joining each path's made one a path).
    package static func signature(of paths: [String]) -> [Int] {
        var signature: [Int] = []
        signature.reserveCapacity(paths.count * 4)
        for path in paths { appendSignature(of: path, to: &signature) }
        return signature
    }

    private static func appendSignature(of path: String, to signature: inout [Int]) {
        var info = stat()
        guard EscapedBytes.withCString(path, { stat($0, &info) }) == 0 else { return signature.append(-1) }
        signature.append(info.st_mtim.tv_sec)
        signature.append(info.st_mtim.tv_nsec)
        signature.append(Int(info.st_size))
        signature.append(Int(info.st_ino))
    }

    /// `realpath(3)`: the path with symlinks resolved.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = EscapedBytes.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return EscapedBytes.decode(cString: resolved)
    }
}
