import CommandLineOptions
import Routing
import SafeText

/// What the front does with its arguments: open the URLs through openurld,
/// say what is wrong with the command line, or hand it on to the full CLI,
/// which defines every other behaviour (other commands, `--help`, `-v`,
/// paths and `file:` URLs, a URL it cannot read).
enum Plan {
    case open([ValidatedURL], quiet: Bool, ask: Bool)
    /// `openurl --version`: said here, as the full CLI says it.
    case version
    /// A usage error, found by the full CLI's own parser (`OpenCommandLine`).
    case mistake(UsageError)
    case handOn

    /// Reads `arguments` as the full CLI reads them before it knows the
    /// command (`Subcommand.invocation`), with the same code: a first word
    /// spelled like a command goes on; anything else is the plain open's.
    /// Takes as URLs only words that `ValidatedURL` accepts and
    /// `FileURL.isPath` does not call paths; one other word, and it all goes on.
    init(_ arguments: [String]) {
        guard let first = arguments.first else {
            self = .mistake(OpenCommandLine.noURLGiven)
            return
        }
        if OpenCommandLine.looksLikeACommand(first) {
            self = .handOn
            return
        }
        let parsed: ParsedArguments
        do throws(UsageError) { parsed = try OpenCommandLine.parseOpen(arguments) } catch {
            self = .mistake(error)
            return
        }
        // In the full CLI's order: --help, then --version, then the URLs.
        if parsed.has(Option.help) || parsed.has(OpenCommandLine.verbose) {
            self = .handOn
            return
        }
        if parsed.has(Option.version) {
            self = .version
            return
        }
        if parsed.positionals.isEmpty {
            self = .mistake(OpenCommandLine.noURLGiven)
            return
        }
        var urls: [ValidatedURL] = []
        for argument in parsed.positionals {
            guard !argument.hasPrefix("-"), !EscapedBytes.hasEscapes(argument),
                  !FileURL.isPath(argument, exists: System.exists),
                  let url = try? ValidatedURL(argument), url.scheme != "file"
            else {
                self = .handOn
                return
            }
            urls.append(url)
        }
        self = .open(urls, quiet: parsed.has(OpenCommandLine.quiet), ask: parsed.has(OpenCommandLine.ask))
    }
}
