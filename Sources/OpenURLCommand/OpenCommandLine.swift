import CommandLineOptions

/// How `openurl` reads a command line before it knows the command, and the
/// plain open's options, declared once: the full CLI parses with them, and
/// the fast front compiles this file (Front/build) so that it takes the same
/// words and says the same about a wrong one.
enum OpenCommandLine {
    static let verbose = Option("-v", "--verbose", help: "say how each URL was opened, on standard error")
    static let quiet = Option(
        "-q", "--quiet", help: "never show a failure as a desktop notification (errors still go to standard error)")
    static let ask = Option(
        "--ask", help: "show the chooser before any handler or rule, so that you pick where the URL opens (Esc: not at all; \"Use Default\": the usual walk)")
    /// The plain open's options, in the order `openurl --help` lists them.
    static let options = [verbose, quiet, ask, Option.version, Option.help]

    /// What an empty command line, or an open without URLs, is told.
    static let noURLGiven = UsageError("no URL given")

    /// A first argument spelled like a command (lower-case letters and
    /// dashes: no scheme, no path) is read as a mistyped one, never opened;
    /// every command's name is spelled so.
    static func looksLikeACommand(_ argument: String) -> Bool {
        guard let head = argument.utf8.first, head >= UInt8(ascii: "a"), head <= UInt8(ascii: "z") else { return false }
        return argument.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "-") }
    }

    /// Reads `arguments` (after `open`, or the whole command line when its
    /// first word is neither a command nor spelled like one) as the plain open's.
    /// - Throws: `UsageError` for an unknown option or a value given to a flag.
    static func parseOpen(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        try ParsedArguments(arguments, options: options, words: .operands, hint: "to open a URL starting with '-', put '--' before it")
    }
}
