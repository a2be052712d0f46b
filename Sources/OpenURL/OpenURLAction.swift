import DispatcherAPI
import FoundationEssentials
import Routing

/// Opens URLs the way the desktop wants them opened, like SwiftUI's
/// `OpenURLAction`.
///
///     let openURL = OpenURLAction.system
///     let accepted = await openURL(URL(string: "https://example.com")!)
///
/// `OpenURLAction.system` asks the openurld dispatcher (starting it through
/// D-Bus activation when it is installed), which asks the registered
/// handlers and then the desktop's default application. An action made with
/// `init(handler:)` asks its closure first, like an inner
/// `.environment(\.openURL, …)` in SwiftUI.
public struct OpenURLAction: Sendable {
    /// What a handler did with a URL, as in SwiftUI.
    /// (A Foundation face on the dispatcher's `HandlerReply`.)
    public struct Result: Sendable, Equatable {
        let reply: HandlerReply

        /// The URL was opened; stop.
        public static let handled = Result(reply: .handled)
        /// The URL must not be opened; stop, reporting `false`.
        public static let discarded = Result(reply: .discarded)
        /// Pass the URL on to the next handler, and finally the system.
        public static let systemAction = Result(reply: .systemAction)
        /// Pass another URL on instead.
        public static func systemAction(_ url: URL) -> Result { Result(reply: .rewrite(url.absoluteString)) }
    }

    private enum Handler: Sendable {
        case system
        case local(@Sendable (URL) async -> Result)
    }

    private let handler: Handler

    /// An action asking the openurld dispatcher.
    public static let system = OpenURLAction(handler: .system)

    /// An action that asks `handler` first; `.systemAction` passes the URL on to
    /// `OpenURLAction.system`.
    ///
    ///     let openURL = OpenURLAction { url in
    ///         url.host == "intranet.example" ? .discarded : .systemAction
    ///     }
    public init(handler: @escaping @Sendable (URL) async -> Result) {
        self.handler = .local(handler)
    }

    private init(handler: Handler) { self.handler = handler }

    /// Opens `url`; `true` when it was accepted (handled, or an application was started).
    public func callAsFunction(_ url: URL) async -> Bool {
        switch handler {
        case .system:
            return (try? await OpenURLAction.open(url, options: OpenURLOptions()))?.accepted ?? false
        case .local(let handle):
            switch await handle(url).reply {
            case .handled: return true
            case .discarded: return false
            case .systemAction: return await OpenURLAction.system(url)
            case .rewrite(let other): return await OpenURLAction.system(URL(string: other) ?? url)
            }
        }
    }

    /// Opens `url` and calls `completion` with whether it was accepted.
    public func callAsFunction(_ url: URL, completion: @escaping @Sendable (Bool) -> Void) {
        Task { completion(await self(url)) }
    }
}
