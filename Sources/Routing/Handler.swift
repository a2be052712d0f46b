/// A registered handler: its spec, its owner, and what the daemon needs to reach it.
public struct Handler<Payload: Sendable>: Sendable {
    /// Unique for the life of the registry; never reused.
    public let id: UInt32
    /// Whose handler this is (for the daemon: the D-Bus unique name).
    public let owner: String
    public let spec: HandlerSpec
    /// What the daemon needs to ask this handler (e.g. its object path).
    public let payload: Payload

    /// Where this handler stands in the walk for URLs opened by `caller`.
    public func position(for caller: String) -> WalkPosition {
        WalkPosition(isCallersOwn: spec.scope == .caller && owner == caller, priority: spec.priority, id: id)
    }
}

/// A handler's place in the innermost-first order. Smaller is further in:
/// the caller's own caller-scoped handlers first, then higher priority, then
/// newer registration (a later handler wraps the ones before it).
public struct WalkPosition: Comparable, Hashable, Sendable {
    public let isCallersOwn: Bool
    public let priority: Int32
    public let id: UInt32

    public static func < (a: WalkPosition, b: WalkPosition) -> Bool {
        if a.isCallersOwn != b.isCallersOwn { return a.isCallersOwn }
        if a.priority != b.priority { return a.priority > b.priority }
        return a.id > b.id
    }
}
