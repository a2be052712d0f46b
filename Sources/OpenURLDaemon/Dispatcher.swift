import DBus
import Desktop
import DispatcherAPI
import Routing
import Synchronization

/// The daemon's core: the handler registry and the dispatch of URLs through
/// it to the system default. D-Bus methods (see `Dispatcher+Interface`) are
/// thin wrappers around this type.
public final class Dispatcher: Sendable {
    /// Timeouts and limits.
    public struct Configuration: Sendable {
        public var handlerTimeout: Duration = .seconds(5)
        public var walkDeadline: Duration = .seconds(20)
        public var limits = HandlerRegistry<HandlerEndpoint>.Limits()
        public var verbose = false
        public init() {}
    }

    let connection: Connection
    let configuration: Configuration
    let systemDefault: any SystemDefault
    let logger: Logger
    let identities: CallerIdentities
    private let state: Mutex<State>

    struct State {
        var registry: HandlerRegistry<HandlerEndpoint>
        var walksInFlight = 0
        var draining = false
        /// When the last walk ended or the handlers last changed.
        var lastActivity = ContinuousClock.now
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    public init(connection: Connection, configuration: Configuration, systemDefault: any SystemDefault, logger: Logger) {
        self.connection = connection
        self.configuration = configuration
        self.systemDefault = systemDefault
        self.logger = logger
        self.identities = CallerIdentities(connection: connection)
        self.state = Mutex(State(registry: HandlerRegistry(limits: configuration.limits)))
    }

    /// The result of one dispatch, as `OpenURLWithOptions` reports it.
    public struct Dispatch: Sendable, Equatable {
        public let outcome: Outcome
        public let finalURL: ValidatedURL
        public let handler: UInt32?
        public let application: String?
        public let message: String?
    }

    /// Walks the handlers for `url` opened by `caller`, then the system default.
    public func dispatch(_ url: ValidatedURL, caller: BusName, activationToken: String?) async -> Dispatch {
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.walkDeadline
        // The caller's app ID costs a bus round trip; only handlers need it.
        let appID = LazyAppID(caller: caller, identities: identities)
        let result = await walk(
            url, caller: caller.rawValue,
            candidates: { url, position in
                state.withLock { $0.registry.candidates(for: url, caller: caller.rawValue, outside: position) }
            },
            ask: { handler, current in
                let remaining = deadline - clock.now
                return await ask(
                    handler, about: current, caller: caller, appID: await appID.value, original: url,
                    activationToken: activationToken, timeout: min(configuration.handlerTimeout, remaining))
            },
            mayContinue: { clock.now < deadline })

        let dispatch: Dispatch
        switch result.outcome {
        case .handled(let id):
            dispatch = Dispatch(outcome: .handled, finalURL: result.finalURL, handler: id, application: nil, message: nil)
        case .discarded(let id):
            dispatch = Dispatch(outcome: .discarded, finalURL: result.finalURL, handler: id, application: nil, message: nil)
        case .passedOn:
            dispatch = await fallBack(result.finalURL, activationToken: activationToken)
        }
        log(dispatch, of: url, caller: caller, appID: appID.ifKnown ?? "", trace: result.trace)
        return dispatch
    }

    private func fallBack(_ url: ValidatedURL, activationToken: String?) async -> Dispatch {
        switch await systemDefault.open(url, activationToken: activationToken) {
        case .opened(let application):
            Dispatch(outcome: .opened, finalURL: url, handler: nil, application: application, message: nil)
        case .noApplication(let reason):
            Dispatch(outcome: .noApplication, finalURL: url, handler: nil, application: nil, message: reason)
        case .launchFailed(let application, let reason):
            Dispatch(outcome: .launchFailed, finalURL: url, handler: nil, application: application, message: reason)
        case .refused(let reason):
            Dispatch(outcome: .refused, finalURL: url, handler: nil, application: nil, message: reason)
        }
    }

    /// Asks one handler over D-Bus. Every failure is this handler's alone.
    private func ask(
        _ handler: Handler<HandlerEndpoint>, about url: ValidatedURL, caller: BusName, appID: String,
        original: ValidatedURL, activationToken: String?, timeout: Duration
    ) async -> HandlerAnswer {
        var context: [String: Variant] = [
            "caller": Variant(caller.rawValue), "caller-app-id": Variant(appID), "original-url": Variant(original.text),
        ]
        if let activationToken { context["activation-token"] = Variant(activationToken) }
        let answer: HandlerAnswer
        do {
            let reply = try await connection.call(
                BusName(trusted: handler.owner), handler.payload.path, DispatcherAPI.handlerInterface, "HandleURL",
                [.string(url.text), context.dbusValue], timeout: timeout)
            answer = Self.answer(from: reply)
        } catch {
            answer = .failed(error.name == .noReply ? "no answer within the time limit (\(error.message))" : error.description)
        }
        if case .failed(let reason) = answer {
            logger.warning("handler \(handler.id) '\(handler.spec.name)' of \(handler.owner) failed: \(reason)")
        }
        return answer
    }

    /// Reads `HandleURL`'s `(ss)` reply.
    static func answer(from reply: [Value]) -> HandlerAnswer {
        guard let (result, url) = try? reply.decode(String.self, String.self) else {
            return .failed("replied with signature '\(reply.signature)' instead of 'ss'")
        }
        switch HandlerResult(rawValue: result) {
        case .handled?: return .handled
        case .discarded?: return .discarded
        case .systemAction?: return url.isEmpty ? .systemAction : .rewrite(url)
        case nil: return .failed("replied with unknown result '\(result.prefix(64))'")
        }
    }

    private func log(_ dispatch: Dispatch, of url: ValidatedURL, caller: BusName, appID: String, trace: [TraceEntry]) {
        let shown = configuration.verbose ? url.text : url.redacted
        let who = appID.isEmpty ? caller.rawValue : "\(caller) (\(appID))"
        var line = "open \(shown) from \(who): \(dispatch.outcome.rawValue)"
        if let handler = dispatch.handler { line += " by handler \(handler)" }
        if let application = dispatch.application { line += " with \(application)" }
        if let message = dispatch.message { line += ": \(message)" }
        logger.info(line)
        for entry in trace {
            logger.debug("  handler \(entry.handlerID) '\(entry.handlerName)' on \(entry.url): \(entry.answer)\(entry.note.map { " (\($0))" } ?? "")")
        }
    }
}

/// A caller's app ID, looked up on first use only.
private final class LazyAppID: Sendable {
    private let caller: BusName
    private let identities: CallerIdentities
    private let known = Mutex<String?>(nil)

    init(caller: BusName, identities: CallerIdentities) {
        self.caller = caller
        self.identities = identities
    }

    var ifKnown: String? { known.withLock { $0 } }

    var value: String {
        get async {
            if let known = ifKnown { return known }
            let found = await identities.appID(of: caller)
            known.withLock { $0 = found }
            return found
        }
    }
}

// MARK: - Registry access and lifecycle bookkeeping

extension Dispatcher {
    func withRegistry<T>(_ body: (inout HandlerRegistry<HandlerEndpoint>) throws(RoutingError) -> T) throws(RoutingError) -> T {
        try state.withLock { state throws(RoutingError) in try body(&state.registry) }
    }

    /// Handlers of a connection that left the bus are forgotten.
    func ownerLeft(_ owner: BusName) {
        identities.forget(owner)
        let removed = state.withLock { $0.registry.removeAll(ownedBy: owner.rawValue) }
        guard !removed.isEmpty else { return }
        logger.info("\(owner) left the bus; removed handlers \(removed.map { String($0.id) }.joined(separator: ", "))")
        handlersChanged()
    }

    func handlersChanged() {
        state.withLock { $0.lastActivity = .now }
        try? connection.emit("HandlersChanged", on: DispatcherAPI.dispatcherInterface, from: DispatcherAPI.objectPath)
    }

    /// Counts a walk in flight; `false` when the daemon is shutting down.
    func beginWork() -> Bool {
        state.withLock { state in
            guard !state.draining else { return false }
            state.walksInFlight += 1
            state.lastActivity = .now
            return true
        }
    }

    func endWork() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.walksInFlight -= 1
            state.lastActivity = .now
            guard state.walksInFlight == 0 else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Stops taking new work and waits for walks in flight to finish.
    public func drain() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state in
                state.draining = true
                if state.walksInFlight == 0 { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// How long the dispatcher has had no handler and no walk, or `nil` when it has either.
    public var idleFor: Duration? {
        state.withLock { state in
            guard state.walksInFlight == 0, state.registry.count == 0 else { return nil }
            return .now - state.lastActivity
        }
    }

    /// How many handlers are registered.
    public var handlerCount: Int { state.withLock { $0.registry.count } }
}
