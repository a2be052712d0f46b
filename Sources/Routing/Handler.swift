/// A registered handler: its spec, its owner, and what the daemon needs to reach it.
public struct Handler<Payload: Sendable>: Sendable {
    /// Unique for the life of the registry; never reused.
    public let id: UInt32
    /// Whose handler this is (for the daemon: the D-Bus unique name).
    public let owner: String
    /// What it matches, its priority and scope.
    public let spec: HandlerSpec
    /// What the daemon needs to ask this handler (e.g. its object path).
    public let payload: Payload
    /// Whether it comes from configuration (a rule file) rather than a
    /// registration at run time; see `WalkPosition`.
    public let isConfigured: Bool

    @usableFromInline
    init(id: UInt32, owner: String, spec: HandlerSpec, payload: Payload, isConfigured: Bool) {
        self.id = id
        self.owner = owner
        self.spec = spec
        self.payload = payload
        self.isConfigured = isConfigured
    }

    /// Where this handler stands in the walk for URLs opened by `caller`.
    /// Inlinable, as `walk` is: it runs for every handler of every walk.
    @inlinable
    public func position(for caller: String) -> WalkPosition {
        WalkPosition(isCallersOwn: spec.scope == .caller && owner == caller, priority: spec.priority, isConfigured: isConfigured, id: id)
    }

    /// The same handler with another payload, e.g. to walk handlers of two registries together.
    @inlinable
    public func withPayload<Other>(_ transform: (Payload) -> Other) -> Handler<Other> {
        Handler<Other>(id: id, owner: owner, spec: spec, payload: transform(payload), isConfigured: isConfigured)
    }
}

/// A handler's place in the innermost-first order. Smaller is further in:
/// the caller's own caller-scoped handlers first, then higher priority, then
/// run-time handlers before configured ones (rules, which are older than any
/// registration), then higher id: newer registration (a later handler wraps
/// the ones before it), and for rules, earlier in the files (see `RuleSet`).
public struct WalkPosition: Comparable, Hashable, Sendable {
    /// Whether it is the caller's own caller-scoped handler (asked first).
    public let isCallersOwn: Bool
    /// Its priority: higher is further in.
    public let priority: Int32
    /// Whether it comes from configuration (a rule).
    public let isConfigured: Bool
    /// Its id: higher (newer) is further in.
    public let id: UInt32

    /// A position from its parts.
    @inlinable
    public init(isCallersOwn: Bool, priority: Int32, isConfigured: Bool = false, id: UInt32) {
        self.isCallersOwn = isCallersOwn
        self.priority = priority
        self.isConfigured = isConfigured
        self.id = id
    }

    @inlinable
    public static func < (a: WalkPosition, b: WalkPosition) -> Bool {
        if a.isCallersOwn != b.isCallersOwn { return a.isCallersOwn }
        if a.priority != b.priority { return a.priority > b.priority }
        if a.isConfigured != b.isConfigured { return !a.isConfigured }
        return a.id > b.id
    }
}
