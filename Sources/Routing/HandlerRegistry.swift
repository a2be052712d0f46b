/// The registered handlers, indexed so that finding the ones that match a URL
/// costs about the same with ten handlers as with ten thousand.
///
/// A value type: the daemon keeps one behind a lock and mutates it in place.
public struct HandlerRegistry<Payload: Sendable>: Sendable {
    /// How many handlers one owner, and everybody together, may register.
    public struct Limits: Sendable, Equatable {
        /// How many handlers one owner may register.
        public var perOwner: Int
        /// How many handlers all owners together may register.
        public var total: Int
        /// How many bytes of spec text (`HandlerSpec.textSize`) one owner, and
        /// all owners together, may register: what keeps `ListHandlers`'
        /// reply far below the bus's 32 MiB message limit, whoever registers.
        public var specBytesPerOwner: Int
        /// How many bytes of spec text all owners together may register.
        public var specBytesTotal: Int
        /// Limits of these sizes (the defaults are the daemon's).
        public init(perOwner: Int = 64, total: Int = 4096, specBytesPerOwner: Int = 1 << 20, specBytesTotal: Int = 8 << 20) {
            self.perOwner = perOwner
            self.total = total
            self.specBytesPerOwner = specBytesPerOwner
            self.specBytesTotal = specBytesTotal
        }
    }

    /// The limits registration is held to.
    public let limits: Limits
    /// Whether its handlers come from configuration (see `WalkPosition`).
    public let holdsConfigured: Bool
    private var handlers: [UInt32: Handler<Payload>] = [:]
    /// The same handlers without their payload: matching runs on these
    /// concrete values, because generic code that is not specialized across
    /// the module boundary spent most of a lookup on run-time type metadata.
    /// (A top-level type: one nested in this generic struct would be generic too.)
    private var entries: [UInt32: RegistryEntry] = [:]
    private var owners: [String: Set<UInt32>] = [:]
    private var specBytesByOwner: [String: Int] = [:]
    private var specBytes = 0
    /// The handlers of each scheme they name.
    private var index: [String: SchemeIndex] = [:]
    /// The handlers of every scheme (`*`): apart from `index`, so that a URL
    /// is not looked up a second time under `*` when nobody registered it.
    private var anyScheme = SchemeIndex()
    private var lastID: UInt32 = 0

    /// An empty registry held to `limits`, for run-time handlers or (`holdsConfigured`) for rules.
    public init(limits: Limits = Limits(), holdsConfigured: Bool = false) {
        self.limits = limits
        self.holdsConfigured = holdsConfigured
    }

    /// The number of registered handlers.
    public var count: Int { handlers.count }

    /// Every handler, oldest first.
    public var all: [Handler<Payload>] { handlers.values.sorted { $0.id < $1.id } }

    /// The handler with `id`, if it is registered.
    public func handler(_ id: UInt32) -> Handler<Payload>? { handlers[id] }

    /// How many handlers `owner` has registered.
    public func count(ownedBy owner: String) -> Int { owners[owner]?.count ?? 0 }

    /// Adds a handler and returns it with its new id.
    /// - Throws: `RoutingError.limitExceeded` when the owner or the registry is full.
    public mutating func register(_ spec: HandlerSpec, owner: String, payload: Payload) throws(RoutingError)
        -> Handler<Payload>
    {
        if count(ownedBy: owner) >= limits.perOwner {
            throw RoutingError(.limitExceeded, "an application may register at most \(limits.perOwner) handlers")
        }
        if handlers.count >= limits.total {
            throw RoutingError(.limitExceeded, "the dispatcher holds at most \(limits.total) handlers")
        }
        let size = spec.textSize
        if specBytesByOwner[owner, default: 0] + size > limits.specBytesPerOwner {
            throw RoutingError(.limitExceeded, "an application's handler specs may hold at most \(limits.specBytesPerOwner) bytes of schemes, hosts, paths and names; this one has \(size), and \(specBytesByOwner[owner, default: 0]) are in use")
        }
        if specBytes + size > limits.specBytesTotal {
            throw RoutingError(.limitExceeded, "the dispatcher holds at most \(limits.specBytesTotal) bytes of handler specs")
        }
        guard lastID < UInt32.max else {
            throw RoutingError(.limitExceeded, "handler ids are exhausted; restart the dispatcher")
        }
        lastID += 1
        let handler = Handler(id: lastID, owner: owner, spec: spec, payload: payload, isConfigured: holdsConfigured)
        handlers[handler.id] = handler
        entries[handler.id] = RegistryEntry(owner: owner, spec: spec)
        owners[owner, default: []].insert(handler.id)
        specBytesByOwner[owner, default: 0] += size
        specBytes += size
        forEachKey(of: spec) { scheme, key in
            if scheme == "*" { anyScheme.insert(handler.id, at: key) } else { index[scheme, default: SchemeIndex()].insert(handler.id, at: key) }
        }
        return handler
    }

    /// Removes handler `id` on behalf of `owner`.
    /// - Throws: `noSuchHandler` for an unknown id, `notOwner` when it belongs to someone else.
    @discardableResult
    public mutating func unregister(_ id: UInt32, by owner: String) throws(RoutingError) -> Handler<Payload> {
        guard let handler = handlers[id] else {
            throw RoutingError(.noSuchHandler, "no handler with id \(id)")
        }
        guard handler.owner == owner else {
            throw RoutingError(.notOwner, "handler \(id) belongs to another application")
        }
        remove(handler)
        return handler
    }

    /// Removes every handler of `owner` (e.g. when its connection left the bus).
    @discardableResult
    public mutating func removeAll(ownedBy owner: String) -> [Handler<Payload>] {
        guard let ids = owners[owner] else { return [] }
        let removed = ids.compactMap { handlers[$0] }
        removed.forEach { remove($0) }
        return removed.sorted { $0.id < $1.id }
    }

    /// The handlers to ask about `url` opened by `caller`, innermost first.
    ///
    /// - Parameter position: only handlers strictly outside it are returned;
    ///   after a rewrite, the walk passes the rewriting handler's position so
    ///   that it never goes back inwards.
    ///
    /// Compiled for the daemon's handlers too, not only generically: this runs for every URL.
    @_specialize(exported: true, where Payload == HandlerEndpoint)
    public func candidates(for url: ValidatedURL, caller: String, outside position: WalkPosition? = nil)
        -> [Handler<Payload>]
    {
        // Gathered in an array: a handler indexed under two keys (a host
        // and its wildcard) comes twice, and sorting drops the repeat. A
        // `Set` cost an allocation, a resize and a hash for every id, on
        // every URL, for a list that is usually one or two long.
        var ids: [UInt32] = []
        index[url.scheme]?.collect(for: url.host, into: &ids)
        if !anyScheme.isEmpty { anyScheme.collect(for: url.host, into: &ids) }
        ids.sort()
        // The handlers themselves, sorted only when there are several: a
        // list of positions sorted and then looked up again was two more
        // arrays and a second lookup of each id, for a list usually one long.
        var found: [Handler<Payload>] = []
        var previous: UInt32?
        for id in ids {
            guard id != previous else { continue }
            previous = id
            guard let entry = entries[id] else { continue }
            if entry.spec.scope == .caller && entry.owner != caller { continue }
            if let position, !(position < entry.position(for: caller, id: id, isConfigured: holdsConfigured)) { continue }
            guard entry.spec.matches(url), let handler = handlers[id] else { continue }
            found.append(handler)
        }
        if found.count > 1 { found.sort { $0.position(for: caller) < $1.position(for: caller) } }
        return found
    }

    private mutating func remove(_ handler: Handler<Payload>) {
        handlers[handler.id] = nil
        entries[handler.id] = nil
        owners[handler.owner]?.remove(handler.id)
        if owners[handler.owner]?.isEmpty == true { owners[handler.owner] = nil }
        let size = handler.spec.textSize
        specBytes -= size
        specBytesByOwner[handler.owner, default: size] -= size
        if specBytesByOwner[handler.owner] == 0 { specBytesByOwner[handler.owner] = nil }
        forEachKey(of: handler.spec) { scheme, key in
            if scheme == "*" { return anyScheme.remove(handler.id, at: key) }
            index[scheme]?.remove(handler.id, at: key)
            if index[scheme]?.isEmpty == true { index[scheme] = nil }
        }
    }

    private func forEachKey(of spec: HandlerSpec, _ body: (String, SchemeIndex.Key) -> Void) {
        for scheme in spec.schemes {
            if spec.hosts.isEmpty {
                body(scheme, .anyHost)
            } else {
                for host in spec.hosts { body(scheme, host.isWildcard ? .below(host.domain) : .exactly(host.domain)) }
            }
        }
    }
}

/// A handler's owner and spec, without its payload. Immutable, and shared:
/// looking one up is one retain, not one for each string and list in it.
final class RegistryEntry: Sendable {
    let owner: String
    let spec: HandlerSpec

    init(owner: String, spec: HandlerSpec) {
        self.owner = owner
        self.spec = spec
    }

    func position(for caller: String, id: UInt32, isConfigured: Bool) -> WalkPosition {
        WalkPosition(isCallersOwn: spec.scope == .caller && owner == caller, priority: spec.priority, isConfigured: isConfigured, id: id)
    }
}

/// The handlers of one scheme, by the hosts they name.
///
/// Each key's ids are a list in the order they were registered, copied into
/// a walk's candidates at once, where a `Set` was iterated id by id. The
/// registry inserts all of a handler's keys at once, so a repeat is the
/// last id; `HandlerRegistry.candidates` sorts and drops repeats anyway.
struct SchemeIndex: Sendable {
    enum Key: Hashable {
        case anyHost
        case exactly(String)
        case below(String)
    }

    private var anyHost: [UInt32] = []
    private var exact: [String: [UInt32]] = [:]
    private var below: [String: [UInt32]] = [:]

    var isEmpty: Bool { anyHost.isEmpty && exact.isEmpty && below.isEmpty }

    mutating func insert(_ id: UInt32, at key: Key) {
        // A spec naming a host twice inserts its id twice in a row.
        func add(_ ids: inout [UInt32]) { if ids.last != id { ids.append(id) } }
        switch key {
        case .anyHost: add(&anyHost)
        case .exactly(let host): add(&exact[host, default: []])
        case .below(let domain): add(&below[domain, default: []])
        }
    }

    mutating func remove(_ id: UInt32, at key: Key) {
        switch key {
        case .anyHost: anyHost.removeAll { $0 == id }
        case .exactly(let host):
            exact[host]?.removeAll { $0 == id }
            if exact[host]?.isEmpty == true { exact[host] = nil }
        case .below(let domain):
            below[domain]?.removeAll { $0 == id }
            if below[domain]?.isEmpty == true { below[domain] = nil }
        }
    }

    /// Adds the ids that may match `host`: any-host handlers, handlers naming
    /// exactly it, and wildcard handlers for each domain above it.
    /// An id can be added more than once (a handler naming a host and its wildcard).
    /// A table nobody registered in is not looked up: that still hashed the host.
    func collect(for host: URLHost?, into ids: inout [UInt32]) {
        ids.append(contentsOf: anyHost)
        switch host {
        case .name(let name)?:
            if !exact.isEmpty, let exactly = exact[name] { ids.append(contentsOf: exactly) }
            guard !below.isEmpty else { return }
            var rest = Substring(name)
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                if let matching = below[String(rest)] { ids.append(contentsOf: matching) }
            }
        case .ipv6(let address)?:
            if !exact.isEmpty, let exactly = exact[address] { ids.append(contentsOf: exactly) }
        case .invalid?, nil:
            break
        }
    }
}
