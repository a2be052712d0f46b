import DBus
import DispatcherAPI
import FoundationEssentials
import Synchronization

/// Which URLs a handler wants, and how it ranks among others.
public struct URLHandlerMatch: Sendable, Equatable {
    /// Whom the handler answers for.
    public enum Scope: String, Sendable {
        /// Every program's URLs.
        case session
        /// Only URLs this process opens.
        case caller
    }

    /// Schemes, e.g. `["https", "http"]`, or `["*"]` for every scheme.
    public var schemes: [String]
    /// `example.com` or `*.example.com`; empty means any host.
    public var hosts: [String]
    /// Path globs (`*`, `**`); empty means any path.
    public var paths: [String]
    /// Higher is asked first; default 0.
    public var priority: Int32
    /// Whether the handler is asked for every program's URLs or only this process's.
    public var scope: Scope
    /// A name for `openurl handlers` and the log.
    public var name: String

    /// Describes which URLs a handler wants.
    ///
    ///     URLHandlerMatch(schemes: ["https"], hosts: ["*.example.com"], paths: ["/issues/**"], name: "issues")
    public init(schemes: [String], hosts: [String] = [], paths: [String] = [], priority: Int32 = 0, scope: Scope = .session, name: String = "") {
        self.schemes = schemes
        self.hosts = hosts
        self.paths = paths
        self.priority = priority
        self.scope = scope
        self.name = name
    }
}

/// What a handler is told about the URL it is asked about.
public struct URLHandlerContext: Sendable, Equatable {
    /// The bus name of the program that opened the URL.
    public let caller: String
    /// Its application ID, when known ("" otherwise); a hint, not a credential.
    public let callerAppID: String
    /// The URL before any rewrite.
    public let originalURL: String
    public let activationToken: String?
}

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
        let spec = HandlerHost.Spec(
            schemes: match.schemes, hosts: match.hosts, paths: match.paths, priority: match.priority,
            scope: match.scope.rawValue, name: match.name)
        let path = try await host.add(spec) { text, context in
            // The dispatcher validated the URL; Foundation may still be stricter.
            guard let url = URL(string: text) else { return .systemAction }
            let answer = await handler(url, URLHandlerContext(
                caller: context.caller, callerAppID: context.callerAppID, originalURL: context.originalURL,
                activationToken: context.activationToken))
            switch answer.kind {
            case .handled: return .handled
            case .discarded: return .discarded
            case .systemAction: return .systemAction
            case .rewrite(let other): return .rewrite(other.absoluteString)
            }
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
