import FileAccess
import XDG
import Glibc
import Routing

/// A `file:` URL's file, and its MIME type, as openurld opens it: with
/// the default application for the file's type (what a desktop sends its
/// default browser for an HTML file), never for "the file: scheme".
public struct LocalFile: Sendable, Equatable {
    /// The file's path.
    public let path: String
    /// The file's MIME type, from its name.
    public let mimeType: String

    /// Why a `file:` URL is not opened.
    public struct Refusal: Error, Equatable, Sendable {
        /// Why, for people.
        public let reason: String
    }

    /// - Throws: `Refusal` for another host's file or a missing file. Whether
    ///   its type may be opened is `LaunchGate`'s to say.
    public init(_ url: ValidatedURL, globs: MimeGlobs) throws(Refusal) {
        if let host = url.host?.description, !host.isEmpty, host != "localhost" {
            throw Refusal(reason: "file: URLs of other hosts (\(host)) cannot be opened here")
        }
        // An encoded "/" is part of no file name (RFC 3986 section 2.2, RFC 8089):
        // decoded, `sub%2Fb.txt` would open `sub/b.txt`, another file.
        guard !url.path.lowercased().contains("%2f") else {
            throw Refusal(reason: "the file: URL's path has an encoded '/' (%2F), which no file name can contain")
        }
        guard let decoded = percentDecoded(url.path), decoded.hasPrefix("/"), !decoded.utf8.contains(0) else {
            throw Refusal(reason: "the file: URL's path is not a valid local path")
        }
        var info = stat()
        guard stat(decoded, &info) == 0 else {
            throw Refusal(reason: "\(decoded) does not exist, or cannot be reached")
        }
        path = decoded
        if info.st_mode & S_IFMT == S_IFDIR {
            mimeType = "inode/directory"
        } else {
            let name = String(decoded.split(separator: "/").last ?? "")
            mimeType = globs.type(ofFileNamed: name) ?? "application/octet-stream"
        }
    }
}

extension MimeGlobs {
    /// The database of `base`'s data directories (`$XDG_DATA_HOME`, then `$XDG_DATA_DIRS`).
    public static func load(_ base: BaseDirectories) -> MimeGlobs {
        MimeGlobs(directories: ([base.dataHome] + base.dataDirs).map { directory in
            let mime = directory + "/mime/"
            return ((try? FileSystem.read(mime + "globs2")) ?? nil, (try? FileSystem.read(mime + "aliases")) ?? nil,
                    (try? FileSystem.read(mime + "subclasses")) ?? nil)
        })
    }
}
