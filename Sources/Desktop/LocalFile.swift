import FileAccess
import XDG
import Glibc
import Routing
import SafeText

/// A `file:` URL's file, and its MIME type, as openurld opens it: with
/// the default application for the file's type (what a desktop sends its
/// default browser for an HTML file), never for "the file: scheme".
public struct LocalFile: Sendable, Equatable {
    /// The file's path.
    public let path: String
    /// The file's MIME type, from its name or, when the name does not
    /// decide, its contents.
    public let mimeType: String
    /// How the type was decided.
    public let typing: FileTyping?
    /// A runnable type whose contents rules match the file's first bytes,
    /// whatever its name says (`#!/bin/sh` in `notes.txt`).
    public let runnableContents: String?

    /// Why a `file:` URL is not opened.
    public struct Refusal: Error, Equatable, Sendable {
        /// Why, for people.
        public let reason: String
    }

    /// - Throws: `Refusal` for another host's file or a missing file. Whether
    ///   its type may be opened is `LaunchGate`'s to say.
    public init(_ url: ValidatedURL, mime: MimeDatabase) throws(Refusal) {
        if let host = url.host?.description, !host.isEmpty, host != "localhost" {
            throw Refusal(reason: "file: URLs of other hosts (\(host)) cannot be opened here")
        }
        // An encoded "/" is part of no file name (RFC 3986 section 2.2, RFC 8089):
        // decoded, `sub%2Fb.txt` would open `sub/b.txt`, another file.
        guard !url.path.lowercased().contains("%2f") else {
            throw Refusal(reason: "the file: URL's path has an encoded '/' (%2F), which no file name can contain")
        }
        // A path is bytes: `caf%E9.txt` names the file whose name has the
        // byte E9, kept through `EscapedBytes` to the kernel and to execve.
        guard let bytes = percentDecodedBytes(url.path), bytes.first == UInt8(ascii: "/"), !bytes.contains(0) else {
            throw Refusal(reason: "the file: URL's path is not a valid local path")
        }
        let decoded = EscapedBytes.decode(bytes)
        var info = stat()
        guard EscapedBytes.withCString(decoded, { stat($0, &info) }) == 0 else {
            throw Refusal(reason: "\(displayable(decoded)) does not exist, or cannot be reached")
        }
        path = decoded
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            (mimeType, typing, runnableContents) = ("inode/directory", nil, nil)
        case S_IFREG:
            // One read serves both: the typing's, when the name does not
            // decide, and the gate's check for runnable contents.
            let gateExtent = mime.runnableMagic.extent
            var (read, asked): ([UInt8]?, Int) = (nil, -1)
            func contents(_ count: Int) -> [UInt8]? {
                // Read again only for more than was asked of a file that had it.
                if asked >= count || (asked >= 0 && (read?.count ?? 0) < asked) { return read.map { Array($0.prefix(count)) } }
                asked = max(count, gateExtent)
                read = (try? FileSystem.prefix(of: decoded, count: asked)) ?? nil
                return read.map { Array($0.prefix(count)) }
            }
            let name = String(decoded.split(separator: "/").last ?? "")
            let typing = FileTyping(name: name, globs: mime.globs, magic: mime.magic, contents: contents)
            (mimeType, self.typing) = (typing.type, typing)
            let first = contents(gateExtent) ?? []
            runnableContents = mime.runnableMagic.sections.isEmpty ? nil : mime.runnableMagic.match(first)?.type
        default:
            // A FIFO, a device or a socket: never opened, typed as the
            // specification names such objects, which no application opens.
            let kind = switch info.st_mode & S_IFMT {
            case S_IFIFO: "inode/fifo"
            case S_IFCHR: "inode/chardevice"
            case S_IFBLK: "inode/blockdevice"
            default: "inode/socket"
            }
            (mimeType, typing, runnableContents) = (kind, nil, nil)
        }
    }
}
