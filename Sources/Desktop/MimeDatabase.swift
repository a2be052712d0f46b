import FileAccess
import Glibc
import Synchronization
import XDG

/// The shared-mime-info database of an XDG tree, as openurld types files:
/// names (`globs2`, `aliases`, `subclasses`) and contents (`magic`) of
/// `$XDG_DATA_HOME/mime`, then each `$XDG_DATA_DIRS/mime`. Loaded once and
/// kept until one of those files changes.
public struct MimeDatabase: Sendable {
    /// The name rules, aliases and parent types.
    public let globs: MimeGlobs
    /// The contents rules.
    public let magic: MimeMagic
    /// The types with contents rules that are runnable (`RunnableTypes`,
    /// through aliases and parents): the gate checks every file's first
    /// bytes against these, whatever its name says.
    public let runnableContents: Set<String>
    /// The contents rules of `runnableContents` alone, matched against every file the gate admits.
    public let runnableMagic: MimeMagic

    /// The database from files' bytes, most important directory first (for tests).
    public init(globs: MimeGlobs, magic: MimeMagic) {
        self.globs = globs
        self.magic = magic
        runnableContents = Set(magic.sections.map(\.type).filter { globs.runnableRoot(of: $0) != nil })
        runnableMagic = magic.restricted(to: runnableContents)
    }

    /// The database of `base`'s data directories, from the cache when no file of it changed.
    public static func load(_ base: BaseDirectories) -> MimeDatabase {
        let directories = ([base.dataHome] + base.dataDirs).map { $0 + "/mime/" }
        let signature = directories.flatMap { directory in names.map { FileSignature(path: directory + $0) } }
        let key = directories.joined(separator: "\n")
        if let cached = cache.withLock({ $0[key] }), cached.signature == signature { return cached.database }
        let database = MimeDatabase(
            globs: MimeGlobs(directories: directories.map { mime in
                ((try? FileSystem.read(mime + "globs2")) ?? nil, (try? FileSystem.read(mime + "aliases")) ?? nil,
                 (try? FileSystem.read(mime + "subclasses")) ?? nil)
            }),
            magic: MimeMagic(directories: directories.map { (try? FileSystem.bytes(of: $0 + "magic")) ?? nil }))
        cache.withLock { $0[key] = (signature, database) }
        return database
    }

    private static let names = ["globs2", "aliases", "subclasses", "magic"]
    private static let cache = Mutex<[String: (signature: [FileSignature], database: MimeDatabase)]>([:])

    /// What tells a file changed without reading it: device, inode, size and modification time.
    struct FileSignature: Equatable, Sendable {
        let fields: [Int]
        init(path: String) {
            var info = stat()
            fields = stat(path, &info) == 0
                ? [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
                : []
        }
    }
}

extension MimeGlobs {
    /// The name rules of `base`'s data directories (`$XDG_DATA_HOME`, then `$XDG_DATA_DIRS`).
    public static func load(_ base: BaseDirectories) -> MimeGlobs { MimeDatabase.load(base).globs }
}
