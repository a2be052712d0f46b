import DBus
import Desktop
import DispatcherAPI
import Router
import Routing
import Rules
import Synchronization

/// The daemon's core: the handler registry and the dispatch of URLs through
/// it to the system default. D-Bus methods (see `Dispatcher+Interface`) are
/// thin wrappers around this type.
public final class Dispatcher: Sendable {
    /// Timeouts and limits.
    public struct Configuration: Sendable {
        /// How long one handler may take to answer.
        public var handlerTimeout: Duration = .seconds(5)
        /// How long a whole walk may take, launching included.
        public var walkDeadline: Duration = DispatcherAPI.walkDeadline
        /// How long the person may take in the chooser.
        public var chooserDeadline: Duration = DispatcherAPI.chooserDeadline
        /// How many handlers may be registered, per connection and in all.
        public var limits = HandlerRegistry<HandlerEndpoint>.Limits()
        /// Whether to log full URLs and debug detail.
        public var verbose = false
        /// The defaults.
        public init() {}
    }

    let connection: Connection
    let configuration: Configuration
    let opener: any URLOpener
    let logger: Logger
    let identities: CallerIdentities
    /// The questions on screen, bounded per caller and in all.
    let prompts: PromptLimits
    let asking: Asking
    /// Where failures nobody else will show the person go.
    let notices: any FailureNotices
    private let state: Mutex<State>

    /// How the daemon asks the person, and keeps their answers.
    public struct Asking: Sendable {
        /// Who asks the person.
        public var chooser: any Chooser
        /// Where remembered answers are written; `nil`: they are not remembered.
        public var file: RememberedChoiceFile?
        /// What an answer could be remembered for (host and domain).
        public var scopes: RememberScopes
        /// The rule directories, loaded again once an answer is written.
        public var ruleDirectories: [String]

        /// Asking through `chooser`, remembering answers in `file` for `scopes`.
        public init(chooser: any Chooser = NoChooser(), file: RememberedChoiceFile? = nil, scopes: RememberScopes = RememberScopes(),
                    ruleDirectories: [String] = []) {
            self.chooser = chooser
            self.file = file
            self.scopes = scopes
            self.ruleDirectories = ruleDirectories
        }
    }

    struct State {
        var registry: HandlerRegistry<HandlerEndpoint>
        var rules = RuleSet()
        var ruleProblems: [RuleDiagnostic] = []
        var walksInFlight = 0
        var draining = false
        /// When the last walk ended or the handlers last changed, on `WalkClock`.
        var lastActivity = WalkClock.now
    }

    /// A dispatcher serving on `connection`, opening with `opener` when every step passes.
    public init(connection: Connection, configuration: Configuration, opener: any URLOpener, logger: Logger,
                asking: Asking = Asking(), notices: any FailureNotices = NoFailureNotices()) {
        self.connection = connection
        self.notices = notices
        self.asking = asking
        self.configuration = configuration
        self.opener = opener
        self.logger = logger
        self.identities = CallerIdentities(connection: connection)
        self.prompts = PromptLimits(chooser: asking.chooser)
        self.state = Mutex(State(registry: HandlerRegistry(limits: configuration.limits)))
    }

    /// The result of one dispatch, as `OpenURLWithOptions` reports it.
    /// What a walk decided, as the daemon reports and logs it.
    public typealias Route = Router<HandlerEndpoint>.Route

    /// The router for one walk: the registry's handlers asked over D-Bus,
    /// `rules` as loaded when the walk began. Each closure captures one
    /// reference (`walk`, or the dispatcher): the synchronous ones use it as
    /// their context and allocate none; the asynchronous `ask` still gets a
    /// context of its own, one allocation where there were four.
    func router(for walk: WalkCaller, rules: RuleSet) -> Router<HandlerEndpoint> {
        Router(
            rules: rules,
            handlers: { [walk] url, position in walk.dispatcher.handlers(for: url, caller: walk.name, outside: position) },
            ask: { [walk] handler, url, timeLeft in
                // Known already when the caller was looked up before (a
                // long-lived client, a second handler of this walk): then
                // nothing suspends on the way to the handler.
                let appID = if let known = walk.appIDWithoutWaiting { known } else { await walk.appID }
                return await walk.dispatcher.ask(
                    handler, about: url, caller: walk.name, appID: appID, original: walk.original,
                    activationToken: walk.activationToken, timeout: min(walk.dispatcher.configuration.handlerTimeout, timeLeft))
            },
            opener: opener, deadline: configuration.walkDeadline,
            chooser: prompts.chooser(for: walk.name.rawValue), chooserDeadline: configuration.chooserDeadline,
            rememberable: { [self] url in asking.file == nil ? nil : asking.scopes.targets(for: url) })
    }

    /// Walks the handlers and rules for `url` opened by `caller`, then the
    /// system default, all within the walk deadline (launches included, so
    /// that the caller is answered before its own D-Bus timeout).
    /// - Parameter notifying: show a failure as a desktop notification (the
    ///   caller has nobody to tell: `openurl` with no terminal). A rule that
    ///   fails is always shown: the walk goes on, so no caller hears of it.
    /// - Returns: the walk; its log line is written by `log(_:)`, which the
    ///   D-Bus methods call once their reply is sent.
    public func dispatch(_ url: ValidatedURL, caller: BusName, activationToken: String?,
                         asking how: Router<HandlerEndpoint>.Asking = .init(), notifying: Bool = false) async -> Walk {
        let walk = WalkCaller(caller, of: self, original: url, activationToken: activationToken)
        // One set of rules for the whole walk, even if they are reloaded meanwhile.
        let rules = state.withLock { $0.rules }
        let callerAppID = rules.needsCallerAppID ? await walk.appID : nil
        let route = await router(for: walk, rules: rules)
            .open(url, caller: caller.rawValue, callerAppID: callerAppID, activationToken: activationToken, asking: how) { [self] rule, reason in
                ruleFailed(rule, reason, opening: url)
            }
        return finish(route, url: url, caller: caller, appID: walk.appIDIfKnown ?? "", notifying: notifying)
    }

    /// Logs and shows a rule that failed; the walk goes on past it.
    ///
    /// A method rather than a closure capturing `notices`: the desktop's
    /// notices are weakly referenced by their signal subscriptions, which
    /// gives them a side table, and each copy of them (one per walk, into
    /// the closure) was a retain and a release on the runtime's slow path.
    private func ruleFailed(_ rule: Rule, _ reason: String, opening url: ValidatedURL) {
        logger.warning("rule '\(rule.name)' (\(rule.source)) failed: \(reason)")
        notices.show(FailureNotice(.ruleFailed(rule.name), url: url, reason: reason))
    }

    /// The run-time handlers matching `url` opened by `caller`, innermost first.
    private func handlers(for url: ValidatedURL, caller: BusName, outside position: WalkPosition? = nil) -> [Handler<HandlerEndpoint>] {
        state.withLock { $0.registry.candidates(for: url, caller: caller.rawValue, outside: position) }
    }

    /// The walk `dispatch` would make, when it can be told without waiting
    /// (`Router.routeAtOnce`: nothing takes part and the fallback refuses
    /// the URL outright), for a method answered on the bus's loop; `nil`
    /// when only walking can tell, when the rules need the caller's app ID
    /// (a bus call to learn), and while shutting down (`dispatch`'s callers
    /// refuse the walk then).
    func dispatchAtOnce(_ url: ValidatedURL, caller: BusName, activationToken: String?,
                        asking how: Router<HandlerEndpoint>.Asking = .init(), notifying: Bool = false) -> Walk? {
        // The router's own first test, made before a router is built: most URLs go on to the walk.
        guard opener.refusal(of: url) != nil, beginWork() else { return nil }
        defer { endWork() }
        let rules = state.withLock { $0.rules }
        guard !rules.needsCallerAppID else { return nil }
        // What `router(for:rules:).routeAtOnce` answers, without building the router.
        guard let route = Router<HandlerEndpoint>.routeAtOnce(
            url, handlers: handlers(for: url, caller: caller), rules: rules, callerAppID: nil, opener: opener, asking: how)
        else { return nil }
        return finish(route, url: url, caller: caller, appID: "", notifying: notifying)
    }

    /// What follows every walk: its remembered answer kept, its failure shown when asked to.
    private func finish(_ route: Route, url: ValidatedURL, caller: BusName, appID: String, notifying: Bool) -> Walk {
        if let remembered = route.remembered { keep(remembered) }
        if notifying { notifyIfFailed(route, of: url) }
        return Walk(route: route, url: url, caller: caller, appID: appID)
    }

    /// One walk: what it decided, and what its log line names.
    public struct Walk: Sendable {
        /// What the walk decided.
        public let route: Route
        let url: ValidatedURL
        let caller: BusName
        let appID: String
    }

    /// Shows a walk that could not open its URL. A link someone decided not
    /// to open (`discarded`: a handler, a rule, the person in the chooser) is
    /// not a failure and is not shown.
    func notifyIfFailed(_ route: Route, of url: ValidatedURL) {
        switch route.outcome {
        case .handled, .opened, .discarded: return
        case .noApplication, .launchFailed, .refused, .undecided:
            notices.show(FailureNotice(.notOpened, url: url, reason: route.message ?? route.outcome.rawValue))
        }
    }

    /// Writes a remembered answer as a rule, then loads the rules again, so
    /// that the next URL to that host is not asked about.
    private func keep(_ choice: RememberedChoice) {
        guard let file = asking.file else { return }
        let host = (choice.includesSubdomains ? "*." : "") + choice.host
        do {
            try file.remember(choice)
        } catch {
            logger.warning("cannot remember \(choice.target) for \(host) in \(file.path): \(error)")
            return
        }
        logger.info("remembered \(choice.target) for \(choice.scheme): URLs on \(host) (\(file.path))")
        replaceRules(with: RuleFiles.load(from: asking.ruleDirectories))
    }

    /// Asks one handler over D-Bus. Every failure is this handler's alone.
    private func ask(
        _ handler: Handler<HandlerEndpoint>, about url: ValidatedURL, caller: BusName, appID: String,
        original: ValidatedURL, activationToken: String?, timeout: Duration
    ) async -> HandlerAnswer {
        let context = DispatcherAPI.HandlerContext(
            caller: caller.rawValue, callerAppID: appID, originalURL: original.text, activationToken: activationToken)
        let answer: HandlerAnswer
        do {
            // Calls it never answered still count against the daemon's
            // pending-reply quota at the bus: past the bound, a flood parked
            // on it would leave the daemon unable to ask anyone else. Not
            // asked is not decided (LimitsExceeded is undecided): nothing is
            // opened, so a flood cannot make a slow guard pass.
            let reply = try await connection.call(
                BusName(trusted: handler.owner), ObjectPath(trusted: handler.payload.path), DispatcherAPI.handlerInterface, DispatcherAPI.Member.handleURL,
                body: try context.handleURLArguments(url: url.text), timeout: timeout, awaitingAtMost: Self.maximumCallsPerHandlerConnection)
            answer = Self.answer(from: reply)
        } catch {
            answer = Self.answer(from: error, whileCancelled: Task.isCancelled)
        }
        switch answer {
        case .failed(let reason):
            logger.warning("handler \(handler.id) '\(handler.spec.name)' of \(handler.owner) failed: \(reason)")
        case .undecided(let reason):
            logger.error("handler \(handler.id) '\(handler.spec.name)' of \(handler.owner) could not be asked (\(reason)); the URL is not opened")
        default:
            break
        }
        return answer
    }

    /// How many calls one handler connection may leave unanswered (the bus
    /// counting them) before openurld stops asking it: what a connection's
    /// 32 running walks can have in flight, with room for calls it gave up on.
    public static let maximumCallsPerHandlerConnection = 64

    /// What a failed `HandleURL` call means. The daemon's own trouble (the
    /// bus refused the call for its quota, the connection is gone, memory,
    /// the walk's task cancelled at shutdown) leaves the walk undecided;
    /// anything else is the handler's failure and costs only its turn.
    static func answer(from error: DBusError, whileCancelled cancelled: Bool = false) -> HandlerAnswer {
        if cancelled { return .undecided("the daemon is shutting down") }
        switch error.name {
        case .limitsExceeded, .disconnected, .noMemory:
            return .undecided(error.description)
        case .noReply:
            return .failed("no answer within the time limit (\(error.message))")
        default:
            return .failed(error.description)
        }
    }

    /// Reads `HandleURL`'s `(ss)` reply.
    static func answer(from reply: [Value]) -> HandlerAnswer {
        do {
            return HandlerAnswer(try HandlerReply(reply: reply))
        } catch {
            return .failed(error.message)
        }
    }

    /// Writes the walk's line (and, with `--verbose`, its trace). The D-Bus
    /// methods call this after their reply is sent (`MethodAnswer.afterReply`):
    /// the caller does not wait for the line to be built and written.
    func log(_ walk: Walk) {
        // Built in place and written as it is when nothing in it needs an
        // escape (`Logger.log(_:utf8:)`): this line is written for every
        // URL, and as a `String` it took fourteen appends of some 300
        // instructions each and a copy to check and escape it. A line too
        // long for the buffer is one the logger cuts, from a string.
        let built = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Logger.maximumLineBytes) { storage in
            var line = LineBuffer(in: storage)
            describe(walk) { line.add($0) }
            guard !line.overflowed else { return false }
            // Kept briefly and written with others (`LineBatch`): not between
            // this reply and the bus daemon that passes it on.
            logger.log(.info, utf8: line.bytes, batched: true)
            return true
        }
        if !built {
            var text = ""
            describe(walk) { text += $0 }
            logger.info(text)
        }
        guard logger.writes(.debug) else { return }
        for entry in walk.route.trace {
            let who = entry.isConfigured ? "rule" : "handler \(entry.handlerID)"
            logger.debug("  \(who) '\(entry.handlerName)' on \(entry.url): \(entry.answer)\(entry.note.map { " (\($0))" } ?? "")")
        }
    }

    /// Gives the walk's line to `add`, part by part: the URL (without
    /// `--verbose`, its scheme and host), the caller and its app ID, the
    /// outcome and what decided it.
    private func describe(_ walk: Walk, _ add: (String) -> Void) {
        let (route, url) = (walk.route, walk.url)
        add("open ")
        if configuration.verbose { add(url.text) } else { url.redactedParts(add) }
        add(" from ")
        add(walk.caller.rawValue)
        if !walk.appID.isEmpty {
            add(" (")
            add(walk.appID)
            add(")")
        }
        add(": ")
        add(route.outcome.rawValue)
        if let handler = route.handler {
            add(" by handler ")
            add(String(handler))
        }
        if let rule = route.rule {
            add(" by rule '")
            add(rule)
            add("'")
        }
        if let application = route.application {
            add(" with ")
            add(application)
        }
        if let message = route.message {
            // A file's path is the URL's path, and the reasons for files name
            // it: without --verbose only scheme and host are logged.
            add(": ")
            add(configuration.verbose || url.scheme != "file" ? message : "(the reason names the file; --verbose logs it)")
        }
    }
}

/// Whom one walk is for, as the router's closures need it: the caller, its
/// app ID (looked up on first use only: a bus round trip that only handlers
/// and `Callers=` rules need), the URL first asked for and the activation
/// token. One object, so that each closure captures one reference.
final class WalkCaller: Sendable {
    let dispatcher: Dispatcher
    /// The caller's unique name.
    let name: BusName
    let original: ValidatedURL
    let activationToken: String?
    private let known = Mutex<String?>(nil)

    init(_ name: BusName, of dispatcher: Dispatcher, original: ValidatedURL, activationToken: String?) {
        self.name = name
        self.dispatcher = dispatcher
        self.original = original
        self.activationToken = activationToken
    }

    /// The app ID, when it was looked up already.
    var appIDIfKnown: String? { known.withLock { $0 } }

    /// The app ID when this walk or an earlier one of the same caller
    /// looked it up; `nil` when only a bus call can tell.
    var appIDWithoutWaiting: String? {
        known.withLock { known in
            if known == nil { known = dispatcher.identities.knownAppID(of: name) }
            return known
        }
    }

    /// The caller's app ID ("" when it has none), looked up on first use.
    var appID: String {
        get async {
            if let known = appIDIfKnown { return known }
            let found = await dispatcher.identities.appID(of: name)
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
        state.withLock { $0.lastActivity = WalkClock.now }
        try? connection.emit(DispatcherAPI.Member.handlersChanged, on: DispatcherAPI.dispatcherInterface, from: DispatcherAPI.objectPath)
    }

    /// Counts a walk in flight; `false` when the daemon is shutting down.
    ///
    /// One caller's share of walks (and so of the handler calls that use the
    /// bus's pending-reply quota) is bounded where its calls come in: the
    /// D-Bus layer runs at most `CallQueues.maximumRunning` of a sender's
    /// calls at once and queues the rest.
    func beginWork() -> Bool {
        state.withLock { state in
            guard !state.draining else { return false }
            // No clock read: while a walk is in flight the daemon is not
            // idle whatever `lastActivity` says, and `endWork` sets it.
            state.walksInFlight += 1
            return true
        }
    }

    func endWork() {
        state.withLock { state in
            state.walksInFlight -= 1
            state.lastActivity = WalkClock.now
        }
    }

    /// Stops taking new work and waits for the walks in flight to finish,
    /// until `deadline` (or until the waiting task is cancelled).
    /// - Returns: whether every walk finished.
    @discardableResult
    public func drain(before deadline: ContinuousClock.Instant = .now + .seconds(3600)) async -> Bool {
        state.withLock { $0.draining = true }
        while state.withLock({ $0.walksInFlight }) > 0 {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// How many walks are in flight.
    var walksInFlight: Int { state.withLock { $0.walksInFlight } }

    /// How long the dispatcher has had no handler and no walk, or `nil` when it has either.
    public var idleFor: Duration? {
        state.withLock { state in
            guard state.walksInFlight == 0, state.registry.count == 0 else { return nil }
            return WalkClock.now - state.lastActivity
        }
    }

    /// How many handlers are registered.
    public var handlerCount: Int { state.withLock { $0.registry.count } }

    /// Replaces the rules with a fresh load; walks in flight finish with the
    /// rules they started with. Problems are logged as `file:line: reason`.
    public func replaceRules(with load: RuleFiles.Load) {
        let rules = RuleSet(load.rules)
        for diagnostic in load.diagnostics { logger.warning("\(diagnostic)") }
        let disabled = load.rules.count - rules.count
        logger.info("loaded \(rules.count) rule\(rules.count == 1 ? "" : "s") from \(load.files.count) file\(load.files.count == 1 ? "" : "s")"
            + (disabled > 0 ? " (\(disabled) disabled or over the limit)" : "")
            + (load.diagnostics.isEmpty ? "" : "; \(load.diagnostics.count) problem\(load.diagnostics.count == 1 ? "" : "s") reported"))
        state.withLock {
            $0.rules = rules
            $0.ruleProblems = load.diagnostics
        }
        handlersChanged()
    }

    /// The loaded rules and the problems found loading them.
    var loadedRules: (rules: RuleSet, problems: [RuleDiagnostic]) { state.withLock { ($0.rules, $0.ruleProblems) } }
}
