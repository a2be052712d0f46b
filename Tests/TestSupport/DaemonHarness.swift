import DBus
import Desktop
import DispatcherAPI
import OpenURLDaemon
import Router
import Routing
import Synchronization
import XDG

/// A fallback that records what reached it and answers as told.
public final class RecordingOpener: URLOpener {
    public let opened = Mutex<[(url: String, token: String?)]>([])
    let answer: LaunchResult
    /// What the chooser is offered for every URL.
    let offered: [ChooserCandidate]

    /// Schemes refused from the URL alone (`refusal(of:)`), as the
    /// desktop's opener refuses `javascript:`: the daemon answers those at once.
    let refusedSchemes: Set<String>

    public init(answer: LaunchResult = .opened(application: "recorder.desktop"), offering offered: [ChooserCandidate] = [],
                refusing refusedSchemes: Set<String> = []) {
        self.answer = answer
        self.offered = offered
        self.refusedSchemes = refusedSchemes
    }

    public func refusal(of url: ValidatedURL) -> String? {
        refusedSchemes.contains(url.scheme) ? "\(url.scheme): URLs are refused by this recorder" : nil
    }

    public func candidates(for url: ValidatedURL, offering: [Target]) -> [ChooserCandidate] { offered }

    public func application(for url: ValidatedURL) -> String? { "recorder.desktop" }
    public func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult {
        if let reason = refusal(of: url) { return .refused(reason: reason) }
        opened.withLock { $0.append((url.text, activationToken)) }
        return answer
    }
    public var urls: [String] { opened.withLock { $0.map(\.url) } }

    /// What rules asked for: `open ID URL` or `run COMMAND URL`.
    public let ruleLaunches = Mutex<[String]>([])
    public func open(_ url: ValidatedURL, with target: Target, activationToken: String?) async -> LaunchResult {
            let id = target.description
        ruleLaunches.withLock { $0.append("open \(id) \(url.text)") }
        return .opened(application: id)
    }
    public func run(_ commandLine: String, with url: ValidatedURL, name: String, activationToken: String?) async -> LaunchResult {
        ruleLaunches.withLock { $0.append("run \(commandLine) \(url.text)") }
        return .opened(application: name)
    }
}

/// The real dispatcher serving on a private bus, plus helpers to act as its clients.
public struct DaemonHarness: Sendable {
    public let bus: PrivateBus
    public let daemon: Connection
    public let dispatcher: Dispatcher
    public let fallback: RecordingOpener

    public static func with(
        handlerTimeout: Duration = .seconds(5), walkDeadline: Duration = .seconds(20),
        limits: HandlerRegistry<HandlerEndpoint>.Limits = .init(),
        fallback: RecordingOpener = RecordingOpener(),
        opener: (@Sendable (Connection) -> any URLOpener)? = nil,
        asking: Dispatcher.Asking = .init(), repliesPerConnection: Int = 50000, logger: Logger = .silent,
        _ body: (DaemonHarness) async throws -> Void
    ) async throws {
        try await withPrivateBus(repliesPerConnection: repliesPerConnection) { bus in
            let daemon = try await bus.connect()
            defer { daemon.close() }
            var configuration = Dispatcher.Configuration()
            configuration.handlerTimeout = handlerTimeout
            configuration.walkDeadline = walkDeadline
            configuration.limits = limits
            let dispatcher = try await Daemon.serve(
                on: daemon, configuration: configuration, opener: opener?(daemon) ?? fallback, logger: logger,
                asking: asking)
            try await body(DaemonHarness(bus: bus, daemon: daemon, dispatcher: dispatcher, fallback: fallback))
        }
    }

    /// Calls a Dispatcher1 method from `client`.
    public func call(_ client: Connection, _ member: MemberName, _ arguments: [Value] = [], timeout: Duration = .seconds(25))
        async throws -> [Value]
    {
        try await client.call(DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.dispatcherInterface, member, arguments, timeout: timeout)
    }

    public func open(_ client: Connection, _ url: String) async throws -> Bool {
        try await call(client, "OpenURL", [.string(url)]).decode(Bool.self)
    }

    public func openWithOptions(_ client: Connection, _ url: String, _ options: [String: Variant] = [:]) async throws -> (Bool, [String: Variant]) {
        try await call(client, "OpenURLWithOptions", [.string(url), options.dbusValue]).decode(Bool.self, [String: Variant].self)
    }

    /// Exports a handler object on `client` and registers it.
    ///
    /// - Parameter results: the reply types the object declares; anything but
    ///   `ss` makes a misbehaving handler.
    @discardableResult
    public func register(
        _ client: Connection, path: ObjectPath = "/handler", _ spec: [String: Variant],
        results: [Argument] = [Argument("result", .string), Argument("url", .string)],
        answer: @escaping @Sendable (String, [String: Variant]) async -> [Value]
    ) async throws -> UInt32 {
        let method = ExportedMethod(
            "HandleURL", arguments: [Argument("url", .string), Argument("context", .dictionary(key: .string, value: .variant))],
            results: results,
            asyncHandler: { call throws(DBusError) in
                let (url, context) = try call.arguments.decode(String.self, [String: Variant].self)
                return await answer(url, context)
            })
        client.export([ExportedInterface(DispatcherAPI.handlerInterface, methods: [method])], at: path)
        return try await call(client, "RegisterHandler", [.objectPath(path), spec.dbusValue]).decode(UInt32.self)
    }

    public func handlers(_ client: Connection) async throws -> [[String: Variant]] {
        try await call(client, "ListHandlers").decode([[String: Variant]].self)
    }
}

/// `HandleURL` answers.
public func answer(_ result: String, _ url: String = "") -> [Value] { [.string(result), .string(url)] }

public func spec(_ schemes: [String], hosts: [String] = [], priority: Int32 = 0, scope: String = "session", name: String = "") -> [String: Variant] {
    var spec: [String: Variant] = ["schemes": Variant(schemes), "priority": Variant(priority), "scope": Variant(scope)]
    if !hosts.isEmpty { spec["hosts"] = Variant(hosts) }
    if !name.isEmpty { spec["name"] = Variant(name) }
    return spec
}
