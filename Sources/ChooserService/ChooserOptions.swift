import CommandLineOptions

/// The options every chooser program takes: which bus to serve on, and when
/// to leave. Declared once for `openurld-chooser` and `openurld-chooser-dmenu`.
public struct ChooserOptions: Sendable, Equatable {
    /// The bus to serve on; `nil`: the session bus.
    public var address: String?
    /// How long to stay with nothing to ask; `nil`: for ever.
    public var idleExit: Duration? = .seconds(30)

    /// `--address ADDRESS`.
    public static let address = Option(
        "--address", value: "ADDRESS", help: "serve on the bus at ADDRESS instead of the session bus")
    /// `--idle-exit SECS`.
    public static let idleExit = Option(
        "--idle-exit", value: "SECS", help: "exit after SECS with no question open (default 30; 0: never); D-Bus activation starts it again")

    /// The defaults.
    public init() {}

    /// Reads the options from `given`; an option given twice takes its last value.
    /// - Throws: `UsageError` for an `--idle-exit` that is not a number of seconds.
    public init(_ given: ParsedArguments) throws(UsageError) {
        address = given.values(of: Self.address).last
        if let text = given.values(of: Self.idleExit).last {
            guard let limit = ChooserService.idleExit(text) else { throw UsageError("--idle-exit takes a number of seconds (0 for never)") }
            idleExit = limit
        }
    }
}
