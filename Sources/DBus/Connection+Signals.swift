import Synchronization

/// A signal received by a subscription.
public struct ReceivedSignal: Sendable {
    /// The signal's message: its sender, path, interface and member.
    public let message: Message
    /// The signal's arguments.
    public let arguments: [Value]
}

/// A live signal subscription; `cancel()` removes it and its bus match rule.
public final class SignalSubscription: Sendable {
    struct Entry: Sendable {
        let rule: MatchRule
        let handler: @Sendable (ReceivedSignal) -> Void
    }

    private let connection: Connection
    private let id: UInt64
    private let rule: MatchRule
    private let cancelled = Atomic<Bool>(false)

    init(connection: Connection, id: UInt64, rule: MatchRule) {
        self.connection = connection
        self.id = id
        self.rule = rule
    }

    /// Stops delivery at once and asks the bus to drop the match rule.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        let removed = connection.state.withLock { $0.subscriptions.removeValue(forKey: id) != nil }
        guard removed, connection.isConnected,
            let message = try? Message.methodCall(
                destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "RemoveMatch", arguments: [.string(rule.description)])
        else { return }
        message.setNoReply()
        connection.send(message)
    }
}

extension Connection {
    /// Subscribes to signals matching `rule`.
    ///
    /// `handler` runs on the connection's loop queue, in the order signals
    /// arrive, interleaved in order with incoming method calls; keep it short.
    /// The bus has the rule when this returns.
    /// - Throws: the bus's error, e.g. `LimitsExceeded` when it holds too many rules.
    public func subscribe(
        to rule: MatchRule, handler: @escaping @Sendable (ReceivedSignal) -> Void
    ) async throws(DBusError) -> SignalSubscription {
        let id = state.withLock { state in
            defer { state.nextSubscriptionID += 1 }
            state.subscriptions[state.nextSubscriptionID] = .init(rule: rule, handler: handler)
            return state.nextSubscriptionID
        }
        let subscription = SignalSubscription(connection: self, id: id, rule: rule)
        do {
            _ = try await callBus("AddMatch", [.string(rule.description)])
        } catch {
            state.withLock { _ = $0.subscriptions.removeValue(forKey: id) }
            throw error
        }
        return subscription
    }

    /// Delivers a signal to every matching subscription. Runs on the loop queue.
    func deliverSignal(_ message: Message) {
        let entries = state.withLock { Array($0.subscriptions.values) }
        guard !entries.isEmpty else { return }
        var decoded: [Value]?
        let arguments = {
            if let decoded { return decoded }
            decoded = (try? message.arguments()) ?? []
            return decoded!
        }
        for entry in entries where entry.rule.matches(message, arguments: arguments) {
            entry.handler(ReceivedSignal(message: message, arguments: arguments()))
        }
    }
}
