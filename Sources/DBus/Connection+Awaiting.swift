/// Calls to each unique name that the bus still counts against this
/// connection's pending-reply quota: the ones waiting for their reply, and
/// the ones this side gave up on (timed out, cancelled) until the bus or the
/// peer answers them after all. The bus always does, in time: with the late
/// reply, or with `NoReply` when the peer leaves or the bus's own reply
/// timeout passes. Touched only on the loop queue, but kept in `state`.
extension Connection {
    /// How many calls to `destination` (a unique name) the bus is still
    /// counting: a peer that never answers reaches a bound (the daemon's
    /// per-handler limit) instead of the bus's quota for all our calls.
    public func callsAwaitingAnswer(from destination: BusName) -> Int {
        state.withLock { $0.awaiting[destination.rawValue] ?? 0 }
    }

    /// A call to a unique name was sent. Loop queue.
    func startAwaiting(_ pending: PendingCall) {
        guard case .unique(let name) = pending.authority.destination else { return }
        pending.awaitingFrom = name
        state.withLock { $0.awaiting[name, default: 0] += 1 }
    }

    /// The call's answer came (from the peer or the bus): the bus counts it no more. Loop queue.
    func stopAwaiting(_ pending: PendingCall) {
        guard let name = pending.awaitingFrom else { return }
        pending.awaitingFrom = nil
        state.withLock { state in
            state.awaiting[name]! -= 1
            if state.awaiting[name] == 0 { state.awaiting[name] = nil }
        }
    }

    /// We stopped waiting, but the bus still counts the call until an answer
    /// arrives after all; kept by serial to recognise it. Loop queue.
    func keepAwaitingAfterGivingUp(_ pending: PendingCall) {
        guard let name = pending.awaitingFrom else { return }
        pending.awaitingFrom = nil
        state.withLock { $0.abandoned[pending.serial] = name }
    }

    /// A reply that nobody waits for any more: if it answers a call we gave
    /// up on, from its destination or the bus, that call no longer counts. Loop queue.
    func noteLateAnswer(_ message: Message) {
        state.withLock { state in
            guard let name = state.abandoned[message.replySerial],
                message.sender?.rawValue == name || message.sender == .bus
            else { return }
            state.abandoned[message.replySerial] = nil
            state.awaiting[name]! -= 1
            if state.awaiting[name] == 0 { state.awaiting[name] = nil }
        }
    }
}
