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

    /// Counts a call about to be sent to a unique name, unless `limit` of
    /// its calls are counted already; the check and the count are one
    /// lookup. Loop queue.
    /// - Returns: the error to answer the call with when the limit is
    ///   reached (nothing is counted then), or `nil`.
    func startAwaiting(_ pending: PendingCall, atMost limit: Int?) -> DBusError? {
        guard case .unique(let name) = pending.authority.destination else { return nil }
        let limit = limit ?? .max
        // `limit > 0` first: the defaulted subscript stores its 0 even when
        // nothing is counted, and a name left at 0 would never be forgotten.
        guard limit > 0, state.withLock({ count(&$0.awaiting[name, default: 0], below: limit) }) else {
            return DBusError(.limitsExceeded, "\(limit) calls to \(name) await an answer already; not sent")
        }
        pending.awaitingFrom = name
        return nil
    }

    /// The call's answer came (from the peer or the bus), or it was never
    /// sent: the bus counts it no more. Loop queue.
    func stopAwaiting(_ pending: PendingCall) {
        guard let name = pending.awaitingFrom else { return }
        pending.awaitingFrom = nil
        state.withLock { uncount(name, in: &$0.awaiting) }
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
            uncount(name, in: &state.awaiting)
        }
    }
}

/// Adds one to `count` unless it has reached `limit`.
private func count(_ count: inout Int, below limit: Int) -> Bool {
    guard count < limit else { return false }
    count += 1
    return true
}

/// Takes one from `name`'s count, forgetting the name at zero: one lookup.
private func uncount(_ name: String, in counts: inout [String: Int]) {
    guard let index = counts.index(forKey: name) else { return }
    counts.values[index] -= 1
    if counts.values[index] == 0 { counts.remove(at: index) }
}
