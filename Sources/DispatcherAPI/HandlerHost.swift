import DBus
import Routing
import Synchronization

/// Serves `org.openurld.Handler1` objects for one client connection and keeps
/// their registrations alive: when the dispatcher restarts (its bus name gets
/// a new owner), every live handler is registered again.
public final class HandlerHost: Sendable {
    /// What a handler is told with each URL.
    public typealias Context = DispatcherAPI.HandlerContext

    /// What to match, as `RegisterHandler` takes it.
    public typealias Spec = DispatcherAPI.HandlerMatch

    /// A handler: given the URL and its context, what it says.
    public typealias Handle = @Sendable (String, Context) async -> HandlerReply

    private struct Live {
        let spec: Spec
        var id: UInt32?
    }

    private let client: DispatcherClient
    private let live = Mutex<[ObjectPath: Live]>([:])
    private let counter = Atomic<UInt64>(0)
    private let watch = Mutex<SignalSubscription?>(nil)

    /// A host serving handlers for `client`'s connection.
    public init(client: DispatcherClient) { self.client = client }

    /// Exports a handler and registers it with the dispatcher.
    /// - Returns: the object path, which identifies it for `remove`.
    /// - Throws: the dispatcher's refusal (`InvalidArgs`, `LimitsExceeded`) or a bus error.
    public func add(_ spec: Spec, handle: @escaping Handle) async throws(DBusError) -> ObjectPath {
        try await followDispatcher()
        let number = counter.add(1, ordering: .relaxed).newValue
        let path = ObjectPath(trusted: "/org/openurld/client/handler\(number)")
        client.connection.export([Self.interface(handle)], at: path)
        live.withLock { $0[path] = Live(spec: spec, id: nil) }
        do {
            try await register(path, spec)
        } catch {
            live.withLock { _ = $0.removeValue(forKey: path) }
            client.connection.unexport(path)
            throw error
        }
        return path
    }

    /// The dispatcher's current id for a handler (it changes after a restart).
    public func id(of path: ObjectPath) -> UInt32? { live.withLock { $0[path]?.id } }

    /// Unregisters and unexports a handler.
    public func remove(_ path: ObjectPath) async {
        guard let removed = live.withLock({ $0.removeValue(forKey: path) }) else { return }
        client.connection.unexport(path)
        if let id = removed.id { _ = try? await client.call(DispatcherAPI.Member.unregisterHandler, [.uint32(id)]) }
    }

    private func register(_ path: ObjectPath, _ spec: Spec) async throws(DBusError) {
        let id = try await client.call(DispatcherAPI.Member.registerHandler, [.objectPath(path), spec.dictionary.dbusValue]).decode(UInt32.self)
        let stillLive = live.withLock { live in
            guard live[path] != nil else { return false }
            live[path]!.id = id
            return true
        }
        if !stillLive { _ = try? await client.call(DispatcherAPI.Member.unregisterHandler, [.uint32(id)]) }
    }

    /// Registers everything again when the dispatcher's name gets a new owner.
    private func followDispatcher() async throws(DBusError) {
        guard watch.withLock({ $0 == nil }) else { return }
        let subscription = try await client.connection.watchNameOwners(of: DispatcherAPI.busName) { [weak self] change in
            guard let self, change.newOwner != nil else { return }
            let pending = self.live.withLock { live in
                for key in live.keys { live[key]!.id = nil }
                return live.map { ($0.key, $0.value.spec) }
            }
            Task { for (path, spec) in pending { try? await self.register(path, spec) } }
        }
        // Two first registrations may race here: keep one subscription.
        let installed = watch.withLock { watch in
            guard watch == nil else { return false }
            watch = subscription
            return true
        }
        if !installed { subscription.cancel() }
    }

    /// The `Handler1` interface around a closure.
    static func interface(_ handle: @escaping Handle) -> ExportedInterface {
        ExportedInterface(DispatcherAPI.handlerInterface, methods: [
            ExportedMethod(
                DispatcherAPI.Member.handleURL, arguments: DispatcherAPI.Signatures.handleURL.arguments,
                results: DispatcherAPI.Signatures.handleURL.results,
                asyncHandler: { call throws(DBusError) in
                    let (url, raw) = try call.arguments.decode(String.self, [String: Variant].self)
                    return await handle(url, Context(decoding: raw, url: url)).arguments
                }),
        ])
    }
}
