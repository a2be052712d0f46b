import Glibc

/// Finds a program the way `execvp` would: a name containing `/` is used as
/// given; any other name is searched in each entry of `path` (`PATH`).
///
/// - Returns: the path of an executable regular file, or `nil`.
public func findExecutable(_ name: String, path: String?) -> String? {
    guard !name.isEmpty else { return nil }
    if name.containsByte(UInt8(ascii: "/")) { return isExecutableFile(name) ? name : nil }
    // Split at the byte ':' (splitting by Character cost 18 000 instructions
    // for a ten-entry PATH, and every launch looks up its program).
    let directories = (path?.isEmpty == false ? path! : "/usr/local/bin:/usr/bin:/bin")
        .utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
    for directory in directories {
        // An empty entry means the current directory, which we never search:
        // a daemon's working directory is not a place to take programs from.
        guard directory.first == UInt8(ascii: "/") else { continue }
        let candidate = String(Substring(directory)) + "/" + name
        if isExecutableFile(candidate) { return candidate }
    }
    return nil
}

/// Whether `path` names an executable regular file (following symlinks).
public func isExecutableFile(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
    return access(path, X_OK) == 0
}
