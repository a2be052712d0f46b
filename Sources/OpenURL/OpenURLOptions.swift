import DBus
import DispatcherAPI
import FoundationEssentials
import Routing

/// Options for `OpenURLAction.open(_:options:)`.
public struct OpenURLOptions: Sendable {
    /// An XDG activation token (or X11 startup ID) to pass to the handler
    /// and the launched application, so that its window may take focus.
    public var activationToken: String?
    /// Show the chooser before any handler or rule, so that the person picks
    /// where the URL opens ("use the default, but let me pick").
    public var ask: Bool

    /// Options for opening a URL.
    /// - Parameters:
    ///   - activationToken: from the user's click, when the caller has one
    ///     (e.g. `XDG_ACTIVATION_TOKEN` it was started with).
    ///   - ask: show the chooser first.
    public init(activationToken: String? = nil, ask: Bool = false) {
        self.activationToken = activationToken
        self.ask = ask
    }
}

extension OpenURLAction {
    /// Opens `url` through the dispatcher and reports everything about it.
    ///
    ///     let outcome = try await OpenURLAction.open(url, options: .init(activationToken: token))
    ///     if outcome.outcome == .noApplication { … }
    ///
    /// - Throws: `DBusError` when the dispatcher cannot be reached, or
    ///   `InvalidArgs` when it refuses the URL as invalid.
    public static func open(_ url: URL, options: OpenURLOptions) async throws(DBusError) -> OpenURLOutcome {
        let client = DispatcherClient(connection: try await SessionBus.shared.connection())
        return try await client.open(url.absoluteString, activationToken: options.activationToken, ask: options.ask)
    }

    /// Why `open(_:options:)` threw, for people: the dispatcher's refusal
    /// (an invalid URL, say), or why it could not be reached, without the
    /// bus's own wording.
    public static func describe(_ error: DBusError) -> String {
        DispatcherClient.isUnreachable(error) ? DispatcherClient.unreachableReason(error) : error.message
    }
}

/// The process's session-bus connection, made on first use and made again
/// after it dropped.
actor SessionBus {
    static let shared = SessionBus()
    private var current: Connection?
    /// Tests point the library at a private bus.
    private var address: String?

    func connection() async throws(DBusError) -> Connection {
        if let current, current.isConnected { return current }
        let made = if let address {
            try await Connection.connect(to: address)
        } else {
            try await Connection.session(environment: ProcessInfo.processInfo.environment)
        }
        current = made
        return made
    }

    func use(address: String?) {
        current?.close()
        current = nil
        self.address = address
    }
}
