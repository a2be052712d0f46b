import FileAccess

/// What tells a lookup whether the defaults changed, asked for every URL:
/// each `mimeapps.list` and `aliases` file that exists, by its own
/// signature, and for those that do not, their directories, as a file can
/// only appear by changing its directory (as new desktop files are noticed).
///
/// Most places the specifications list hold no file: 14 of the 18 `stat`
/// calls a lookup made on a one-file tree were for files that were not
/// there. Their directories are a few, shared.
struct DefaultsProbe: Equatable {
    /// The files that exist, and their signatures.
    let files: [String]
    let fileSignature: [Int]
    /// The directories of those that do not, each once, and their signatures.
    let directories: [String]
    let directorySignature: [Int]

    /// Looks at every one of `paths`; a missing one in `watched` (the
    /// applications directories, whose signatures the catalog compares
    /// anyway, and whose changes make it look again) adds no directory.
    init(looking paths: [String], watched: Set<String>) {
        var files: [String] = [], directories: [String] = []
        var fileSignature: [Int] = [], directorySignature: [Int] = []
        for path in paths {
            let directory = Self.directory(of: path)
            // The directory first: a file made after this changes it, even
            // one made before the file is looked for below.
            let before = FileSystem.signature(directory)
            if FileSystem.exists(path) {
                files.append(path)
                fileSignature += FileSystem.signature(path)
            } else if !watched.contains(directory), !directories.contains(directory) {
                directories.append(directory)
                directorySignature += before
            }
        }
        (self.files, self.fileSignature, self.directories, self.directorySignature) = (files, fileSignature, directories, directorySignature)
    }

    /// Whether nothing it looked at changed since: a `stat` for each of its
    /// files and directories.
    var isCurrent: Bool {
        FileSystem.signature(of: files) == fileSignature && FileSystem.signature(of: directories) == directorySignature
    }

    /// Whether `other` found the same files, unchanged: then the defaults
    /// are the same, though a directory changed (another file came or went).
    func hasTheSameFiles(as other: DefaultsProbe) -> Bool {
        files == other.files && fileSignature == other.fileSignature
    }

    /// `path` up to its last `/` (`/` itself for a file at the root).
    private static func directory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }
}
