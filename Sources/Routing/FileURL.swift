import SafeText

/// The `file:` URL for a local path, as GIO's `g_filename_to_uri` writes it:
/// absolute, with every byte outside the unreserved set and `/` percent-encoded.
/// The path is the bytes `EscapedBytes` says it stands for, so a name that
/// is not UTF-8 (`caf\xE9.txt`) becomes `caf%E9.txt`, the name's own byte.
public enum FileURL {
    /// - Parameters:
    ///   - path: an absolute path, or one relative to `workingDirectory`.
    ///   - workingDirectory: an absolute path.
    public static func forPath(_ path: String, workingDirectory: String) -> String {
        let absolute = path.hasPrefix("/") ? path : workingDirectory + (workingDirectory.hasSuffix("/") ? "" : "/") + path
        var url = "file://"
        for byte in EscapedBytes.encode(normalised(absolute)) {
            if isKeptAsIs(byte) {
                url.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                url.unicodeScalars.append("%")
                url.unicodeScalars.append(digits[Int(byte >> 4)])
                url.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return url
    }

    /// Whether a command-line word names a local path rather than a URL: it
    /// starts with `/`, `./` or `../`, or has no `:` before its first `/`
    /// and `exists` says there is such a file.
    public static func isPath(_ word: String, exists: (String) -> Bool) -> Bool {
        if word.hasPrefix("/") || word.hasPrefix("./") || word.hasPrefix("../") { return true }
        let beforeSlash = word.prefix { $0 != "/" }
        return !beforeSlash.contains(":") && !word.isEmpty && exists(word)
    }

    /// Removes `.` and `..` segments and repeated slashes, as a path is meant
    /// (`..` at the root stays at the root).
    static func normalised(_ path: String) -> String {
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": if !segments.isEmpty { segments.removeLast() }
            default: segments.append(segment)
            }
        }
        let joined = "/" + segments.joined(separator: "/")
        return path.hasSuffix("/") && !segments.isEmpty ? joined + "/" : joined
    }

    /// RFC 3986's unreserved characters, the sub-delimiters GLib keeps in paths (not `;`), and `/`.
    private static func isKeptAsIs(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~/!$&'()*+,=:@".utf8.contains(byte)
        }
    }
}
