import Routing
import SafeText

/// What the front does with its arguments: open the URLs through openurld,
/// or hand the whole command line on to the full CLI, which defines every
/// other behaviour (other commands, `--help`, `--version`, `-v`, paths and
/// `file:` URLs, every usage error and its message).
enum Plan {
    case open([ValidatedURL], quiet: Bool, ask: Bool)
    /// `openurl --version`, alone: said here, as the full CLI says it.
    case version
    case handOn

    /// Takes only what it can check with the full CLI's own code: the flags
    /// `-q`, `--quiet`, `--ask`, and words that `ValidatedURL` accepts and
    /// `FileURL.isPath` does not call paths; one other word, and it all goes on.
    init(_ arguments: [String]) {
        if arguments == ["--version"] {
            self = .version
            return
        }
        var urls: [ValidatedURL] = []
        var quiet = false, ask = false
        for argument in arguments {
            switch argument {
            case "-q", "--quiet": quiet = true
            case "--ask": ask = true
            default:
                guard !argument.hasPrefix("-"), !EscapedBytes.hasEscapes(argument),
                      !FileURL.isPath(argument, exists: System.exists),
                      let url = try? ValidatedURL(argument), url.scheme != "file"
                else {
                    self = .handOn
                    return
                }
                urls.append(url)
            }
        }
        self = urls.isEmpty ? .handOn : .open(urls, quiet: quiet, ask: ask)
    }
}
