import DBus
import DispatcherAPI
import LinkDetection
import Router
import Routing
import Synchronization

extension Dispatcher {
    /// The interfaces exported at `/org/openurld/Dispatcher1`.
    public var interfaces: [ExportedInterface] { [dispatcherInterface, applicationInterface] }


    var dispatcherInterface: ExportedInterface {
        ExportedInterface(
            DispatcherAPI.dispatcherInterface,
            methods: [
                ExportedMethod.staged(
                    DispatcherAPI.Member.openURL, arguments: DispatcherAPI.Signatures.openURL.arguments, results: DispatcherAPI.Signatures.openURL.results
                ) { [self] call throws(DBusError) in
                    let url = try Self.validated(try call.arguments.decode(String.self))
                    return answer(url, caller: call.sender, activationToken: nil) { walk in [.boolean(walk.route.outcome.isAccepted)] }
                },
                ExportedMethod.staged(
                    DispatcherAPI.Member.openURLWithOptions, arguments: DispatcherAPI.Signatures.openURLWithOptions.arguments,
                    results: DispatcherAPI.Signatures.openURLWithOptions.results
                ) { [self] call throws(DBusError) in
                    let (text, options) = try call.arguments.decode(String.self, [String: Variant].self)
                    let url = try Self.validated(text)
                    let token = try Self.activationToken(DispatcherAPI.OptionKey.activationToken, in: options)
                    let asking = try Self.asking(in: options)
                    let notifying = try Self.flag(DispatcherAPI.OptionKey.notifyFailure, in: options)
                    return answer(url, caller: call.sender, activationToken: token, asking: asking, notifying: notifying) { walk in
                        walk.route.report.reply
                    }
                },
                ExportedMethod(
                    DispatcherAPI.Member.registerHandler, arguments: DispatcherAPI.Signatures.registerHandler.arguments,
                    results: DispatcherAPI.Signatures.registerHandler.results,
                    handler: { [self] call throws(DBusError) in
                        // Immediate, on the loop queue: ordered before the signal
                        // telling us the caller left, so no handler can outlive it.
                        let (path, dictionary) = try call.arguments.decode(ObjectPath.self, [String: Variant].self)
                        let spec = try HandlerSpec(dbus: dictionary)
                        let handler = try Self.mapped {
                            () throws(RoutingError) in
                            try withRegistry { registry throws(RoutingError) in
                                try registry.register(spec, owner: call.sender.rawValue, payload: HandlerEndpoint(path: path.rawValue))
                            }
                        }
                        logger.info("\(call.sender) registered handler \(handler.id) '\(spec.name)' for \(spec.schemes.joined(separator: ","))")
                        handlersChanged()
                        return [.uint32(handler.id)]
                    }),
                ExportedMethod(
                    DispatcherAPI.Member.unregisterHandler, arguments: DispatcherAPI.Signatures.unregisterHandler.arguments,
                    handler: { [self] call throws(DBusError) in
                        let id = try call.arguments.decode(UInt32.self)
                        try Self.mapped { () throws(RoutingError) in
                            try withRegistry { registry throws(RoutingError) in _ = try registry.unregister(id, by: call.sender.rawValue) }
                        }
                        logger.info("\(call.sender) unregistered handler \(id)")
                        handlersChanged()
                        return []
                    }),
                ExportedMethod(
                    DispatcherAPI.Member.listHandlers, results: DispatcherAPI.Signatures.listHandlers.results,
                    handler: { [self] _ in
                        let all = (try? withRegistry { registry in registry.all }) ?? []
                        return [.array(DispatcherAPI.dictionary, all.map(\.dbusDescription))]
                    }),
                ExportedMethod(
                    DispatcherAPI.Member.explain, arguments: DispatcherAPI.Signatures.explain.arguments,
                    results: DispatcherAPI.Signatures.explain.results,
                    asyncHandler: { [self] call throws(DBusError) in
                        let url = try Self.validated(try call.arguments.decode(String.self))
                        let (steps, application) = await explain(url, caller: call.sender)
                        return [.array(DispatcherAPI.dictionary, steps.map(\.dbusValue)), .string(application)]
                    }),
                ExportedMethod(
                    DispatcherAPI.Member.listRules, results: DispatcherAPI.Signatures.listRules.results,
                    handler: { [self] _ in
                        let (rules, problems) = loadedRules
                        return [.array(DispatcherAPI.dictionary, rules.all.map(\.dbusDescription)), .array(.string, problems.map { .string($0.description) })]
                    }),
                ExportedMethod(
                    DispatcherAPI.Member.detectLinks, arguments: DispatcherAPI.Signatures.detectLinks.arguments,
                    results: DispatcherAPI.Signatures.detectLinks.results,
                    asyncHandler: { call throws(DBusError) in
                        // Off the bus queue: a megabyte of text takes milliseconds.
                        let (text, options) = try call.arguments.decode(String.self, [String: Variant].self)
                        return [try Self.detectLinks(in: text, options: options)]
                    }),
            ],
            properties: [ExportedProperty(DispatcherAPI.versionProperty, type: .string, isConstant: true) { .string(DispatcherAPI.version) }],
            signals: [ExportedSignal(DispatcherAPI.Member.handlersChanged)])
    }

    /// `org.freedesktop.Application`, so that the dispatcher's desktop file can
    /// be `DBusActivatable` and GIO opens URLs with one call instead of a process.
    var applicationInterface: ExportedInterface {
        ExportedInterface(
            DispatcherAPI.applicationInterface,
            methods: [
                ExportedMethod(DispatcherAPI.ApplicationMember.activate, arguments: DispatcherAPI.Signatures.activate.arguments) { _ in
                    []  // The dispatcher has no window to show.
                },
                ExportedMethod(
                    DispatcherAPI.ApplicationMember.open, arguments: DispatcherAPI.Signatures.open.arguments,
                    asyncHandler: { [self] call throws(DBusError) in
                        let (uris, platformData) = try call.arguments.decode([String].self, [String: Variant].self)
                        var token = try Self.activationToken(DispatcherAPI.OptionKey.activationToken, in: platformData)
                        if token == nil { token = try Self.activationToken(DispatcherAPI.OptionKey.desktopStartupID, in: platformData) }
                        // Every URI is tried, whatever happens to the others; then
                        // each one not opened is named, with why.
                        var notOpened: [(uri: String, why: String)] = []
                        var onlyInvalid = true
                        for text in uris {
                            let url: ValidatedURL
                            do throws(RoutingError) { url = try ValidatedURL(text) } catch {
                                notOpened.append((text, error.message))
                                continue
                            }
                            // A URL the person is being asked about counts as taken: GIO waits 25 s, the person minutes.
                            guard let dispatch = try await dispatchAnsweringWhenAsking(url, caller: call.sender, activationToken: token),
                                  !dispatch.outcome.isAccepted else { continue }
                            onlyInvalid = false
                            notOpened.append((text, dispatch.outcome.rawValue + (dispatch.message.map { ": " + $0 } ?? "")))
                        }
                        guard !notOpened.isEmpty else { return [] }
                        let list = notOpened.map { "'\($0.uri.prefix(200))' (\($0.why))" }.joined(separator: "; ")
                        let summary = "\(notOpened.count) of \(uris.count) URI\(uris.count == 1 ? "" : "s") not opened: \(list)"
                        throw DBusError(onlyInvalid ? .invalidArgs : DispatcherAPI.notOpened, summary)
                    }),
                ExportedMethod(
                    DispatcherAPI.ApplicationMember.activateAction,
                    arguments: DispatcherAPI.Signatures.activateAction.arguments
                ) { call throws(DBusError) in
                    let action = (try? call.arguments.decode(String.self, [Variant].self, [String: Variant].self).0) ?? ""
                    throw .invalidArgs("openurld has no action '\(action.prefix(64))'")
                },
            ])
    }

    /// An open's answer: at once, on the bus's loop, when its walk needs no
    /// waiting (`dispatchAtOnce`), else from the walk in a task; the log
    /// line follows the reply either way.
    private func answer(
        _ url: ValidatedURL, caller: BusName, activationToken: String?, asking: Router<HandlerEndpoint>.Asking = .init(),
        notifying: Bool = false, reply: @escaping @Sendable (Walk) -> [Value]
    ) -> StagedAnswer {
        if let walk = dispatchAtOnce(url, caller: caller, activationToken: activationToken, asking: asking, notifying: notifying) {
            return .now(MethodAnswer(reply(walk), afterReply: { [self] in log(walk) }))
        }
        return .later { [self] () throws(DBusError) in
            let walk = try await dispatchCounted(url, caller: caller, activationToken: activationToken, asking: asking, notifying: notifying)
            return MethodAnswer(reply(walk), afterReply: { [self] in log(walk) })
        }
    }

    /// Dispatches unless the daemon is shutting down, counting the walk in flight.
    private func dispatchCounted(
        _ url: ValidatedURL, caller: BusName, activationToken: String?, asking: Router<HandlerEndpoint>.Asking = .init(),
        notifying: Bool = false
    ) async throws(DBusError) -> Walk {
        guard beginWork() else { throw DBusError(DispatcherAPI.shuttingDown, "openurld is shutting down") }
        defer { endWork() }
        return await dispatch(url, caller: caller, activationToken: activationToken, asking: asking, notifying: notifying)
    }

    /// Dispatches like `dispatchCounted`, but returns `nil` as soon as the
    /// walk waits for the person in the chooser; the walk goes on meanwhile,
    /// counted as work in flight, and opens (or not) when they answer. What
    /// it then fails to open no caller hears of: it is shown as a notification.
    private func dispatchAnsweringWhenAsking(_ url: ValidatedURL, caller: BusName, activationToken: String?) async throws(DBusError) -> Route? {
        guard beginWork() else { throw DBusError(DispatcherAPI.shuttingDown, "openurld is shutting down") }
        let first = FirstAnswer<Route?>()
        return await withCheckedContinuation { continuation in
            first.wait(continuation)
            Task {
                defer { endWork() }
                let walk = await dispatch(url, caller: caller, activationToken: activationToken, asking: .init(onAsk: { first.give(nil) }))
                log(walk)
                if !first.give(walk.route) { notifyIfFailed(walk.route, of: url) }
            }
        }
    }


    /// `DetectLinks`: the links in `text` as `(offset, length, kind, url)`, UTF-8 offsets.
    static func detectLinks(in text: String, options: [String: Variant]) throws(DBusError) -> Value {
        let length = text.utf8.count
        guard length <= LinkDetector.maximumTextLength else {
            throw .invalidArgs("text is \(length) bytes long; the limit is \(LinkDetector.maximumTextLength)")
        }
        var kinds = Set(DetectedLink.Kind.allCases)
        if let value = options[DispatcherAPI.OptionKey.kinds] {
            guard let names = value.get([String].self) else {
                throw .invalidArgs("option 'kinds' must have type 'as', not '\(value.value.type)'")
            }
            let known = DetectedLink.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            guard !names.isEmpty else { throw .invalidArgs("option 'kinds' must name at least one of \(known)") }
            kinds = []
            for name in names {
                guard let kind = DetectedLink.Kind(rawValue: name) else {
                    throw .invalidArgs("unknown kind '\(name.prefix(64))' (known kinds: \(known))")
                }
                kinds.insert(kind)
            }
        }
        var region: PhoneRegion?
        if let code = try optionalString(DispatcherAPI.OptionKey.region, in: options) {
            guard let known = PhoneRegion(code) else {
                throw .invalidArgs("unknown region '\(code.prefix(16))' (an ISO 3166 code with a numbering plan, such as FR)")
            }
            region = known
        }
        let links = LinkDetector(kinds: kinds, region: region).links(in: text)
        return .array(DetectedLink.type, links.map(\.value))
    }

    static func validated(_ text: String) throws(DBusError) -> ValidatedURL {
        do { return try ValidatedURL(text) } catch { throw .invalidArgs(error.message) }
    }

    static func optionalString(_ key: String, in options: [String: Variant]) throws(DBusError) -> String? {
        guard let value = options[key] else { return nil }
        guard let text = value.get(String.self) else {
            throw .invalidArgs("option '\(key)' must have type 's', not '\(value.value.type)'")
        }
        return text.isEmpty ? nil : text
    }

    /// An activation token or startup ID from the caller (see `DispatcherAPI.activationTokenProblem`).
    static func activationToken(_ key: String, in options: [String: Variant]) throws(DBusError) -> String? {
        guard let token = try optionalString(key, in: options) else { return nil }
        if let problem = DispatcherAPI.activationTokenProblem(token) { throw .invalidArgs("option '\(key)' \(problem)") }
        return token
    }

    /// A boolean option; `false` when absent.
    static func flag(_ key: String, in options: [String: Variant]) throws(DBusError) -> Bool {
        guard let value = options[key] else { return false }
        guard let flag = value.get(Bool.self) else { throw .invalidArgs("option '\(key)' must have type 'b', not '\(value.value.type)'") }
        return flag
    }

    /// How `OpenURLWithOptions` asks the person: `ask` (b) first, and the `link-text` (s) to show.
    static func asking(in options: [String: Variant]) throws(DBusError) -> Router<HandlerEndpoint>.Asking {
        var asking = Router<HandlerEndpoint>.Asking()
        if let value = options[DispatcherAPI.OptionKey.ask] {
            guard let first = value.get(Bool.self) else { throw .invalidArgs("option 'ask' must have type 'b', not '\(value.value.type)'") }
            asking.first = first
        }
        if let text = try optionalString(DispatcherAPI.OptionKey.linkText, in: options) {
            guard text.utf8.count <= 4096 else { throw .invalidArgs("option 'link-text' is \(text.utf8.count) bytes long; the limit is 4096") }
            asking.linkText = text
        }
        return asking
    }

    /// Maps a routing error onto the D-Bus error a client expects.
    static func mapped<T>(_ body: () throws(RoutingError) -> T) throws(DBusError) -> T {
        do {
            return try body()
        } catch {
            switch error.code {
            case .limitExceeded: throw DBusError(.limitsExceeded, error.message)
            case .noSuchHandler: throw DBusError(DispatcherAPI.noSuchHandler, error.message)
            case .notOwner: throw DBusError(.accessDenied, error.message)
            default: throw .invalidArgs(error.message)
            }
        }
    }
}

/// Resumes one waiter with the first value given; later values are dropped.
final class FirstAnswer<T: Sendable>: Sendable {
    private let waiter = Mutex<CheckedContinuation<T, Never>?>(nil)

    func wait(_ continuation: CheckedContinuation<T, Never>) { waiter.withLock { $0 = continuation } }

    /// - Returns: whether this was the first value (the one the waiter got).
    @discardableResult
    func give(_ value: T) -> Bool {
        guard let waiter = waiter.withLock({ $0.take() }) else { return false }
        waiter.resume(returning: value)
        return true
    }
}
