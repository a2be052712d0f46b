import DBus
import DispatcherAPI
import FoundationEssentials
import Synchronization

/// Which URLs a handler wants, and how it ranks among others (the
/// contract's `RegisterHandler` spec).
///
///     URLHandlerMatch(schemes: ["https"], hosts: ["*.example.com"], paths: ["/issues/**"], name: "issues")
public typealias URLHandlerMatch = DispatcherAPI.HandlerMatch

/// What a handler is told about the URL it is asked about: the caller, its
/// application ID (a hint, not a credential), the URL before any rewrite,
/// and the activation token.
public typealias URLHandlerContext = DispatcherAPI.HandlerContext

/// A handler registered with the dispatcher. It stays registered until
/// `cancel()` is called or the registration is released, and is registered
/// again automatically when the dispatcher restarts.
public final class URLHandlerRegistration: Sendable {
    private let host: HandlerHost
    private let path: ObjectPath
    private let cancelled = Atomic<Bool>(false)

    init(host: HandlerHost, path: ObjectPath) {
        self.host = host
        self.path = path
    }

    /// The dispatcher's current id for this handler (changes after a dispatcher restart).
    public var id: UInt32? { host.id(of: path) }

    /// Unregisters the handler.
    public func cancel() async {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        await host.remove(path)
    }

    deinit {
        guard !cancelled.load(ordering: .relaxed) else { return }
        let host = host
        let path = path
        Task { await host.remove(path) }
    }
}

extension OpenURLAction {
    /// Registers `handler` with the dispatcher for URLs matching `match`.
    ///
    ///     let registration = try await OpenURLAction.register(
    ///         URLHandlerMatch(schemes: ["https"], hosts: ["zoom.us"], name: "zoom links")
    ///     ) { url, _ in
    ///         .systemAction(URL(string: "zoommtg://zoom.us/join?confno=" + url.lastPathComponent)!)
    ///     }
    ///
    /// Keep `registration` for as long as the handler should live.
    /// - Throws: `InvalidArgs` for an invalid match, `LimitsExceeded`, or a bus error.
    public static func register(
        _ match: URLHandlerMatch, handler: @escaping @Sendable (URL, URLHandlerContext) async -> Result
    ) async throws(DBusError) -> URLHandlerRegistration {
        let host = try await HandlerHosts.shared.host()
        let path = try await host.add(match) { text, context in
            // The dispatcher validated the URL; Foundation may still be stricter.
            guard let url = URL(string: text) else { return .systemAction }
            return await handler(url, context).reply
        }
        return URLHandlerRegistration(host: host, path: path)
    }
}

/// One `HandlerHost` per session-bus connection.
actor HandlerHosts {
    static let shared = HandlerHosts()
    private var current: (Connection, HandlerHost)?

    func host() async throws(DBusError) -> HandlerHost {
        let connection = try await SessionBus.shared.connection()
        if let current, current.0 === connection { return current.1 }
        let host = HandlerHost(client: DispatcherClient(connection: connection))
        current = (connection, host)
        return host
    }
}
