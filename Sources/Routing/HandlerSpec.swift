import HostNames
import SafeText

/// What a handler wants to be asked about, and how it ranks.
public struct HandlerSpec: Hashable, Sendable {
    /// Whom a handler answers for.
    public enum Scope: String, Sendable, CaseIterable {
        /// Asked for every caller's URLs.
        case session
        /// Asked only for URLs its own owner opens.
        case caller
    }

    /// Lowercase schemes, or `["*"]` for any scheme.
    public var schemes: [String] { lists.schemes }
    /// Host patterns; empty means any host, including none.
    public var hosts: [HostPattern] { lists.hosts }
    /// Path globs; empty means any path.
    public var paths: [PathGlob] { lists.paths }
    /// Higher is asked first.
    public let priority: Int32
    /// Whose URLs it is asked about.
    public let scope: Scope
    /// A name for people: shown by `ListHandlers`, `Explain` and the logs.
    public var name: String { lists.name }

    /// The lists and the name, shared and never changed: a handler is
    /// copied through each step of a walk (its candidates, its ask, its
    /// trace), and a copy is then one retain, not one for each of them.
    private final class Lists: Sendable {
        let schemes: [String]
        let hosts: [HostPattern]
        let paths: [PathGlob]
        let name: String

        init(schemes: [String], hosts: [HostPattern], paths: [PathGlob], name: String) {
            self.schemes = schemes
            self.hosts = hosts
            self.paths = paths
            self.name = name
        }
    }
    private let lists: Lists

    /// Two specs are the same when every part is.
    public static func == (left: HandlerSpec, right: HandlerSpec) -> Bool {
        left.priority == right.priority && left.scope == right.scope
            && (left.lists === right.lists
                || (left.schemes == right.schemes && left.hosts == right.hosts && left.paths == right.paths && left.name == right.name))
    }

    /// Hashes every part.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(schemes)
        hasher.combine(hosts)
        hasher.combine(paths)
        hasher.combine(priority)
        hasher.combine(scope)
        hasher.combine(name)
    }

    /// Validates a spec.
    /// - Throws: `RoutingError.invalidSpec` naming the offending entry.
    public init(
        schemes: [String], hosts: [String] = [], paths: [String] = [], priority: Int32 = 0,
        scope: Scope = .session, name: String = ""
    ) throws(RoutingError) {
        guard !schemes.isEmpty else { throw RoutingError(.invalidSpec, "schemes must not be empty") }
        if schemes.contains("*") && schemes.count > 1 {
            throw RoutingError(.invalidSpec, "'*' matches every scheme and cannot be combined with others")
        }
        for scheme in schemes where scheme != "*" && !isValidScheme(scheme) {
            throw RoutingError(.invalidSpec, "'\(scheme.prefix(64))' is not a valid scheme")
        }
        if name.utf8.count > 256 { throw RoutingError(.invalidSpec, "name is longer than 256 bytes") }
        if let bad = name.unicodeScalars.first(where: needsEscape) {
            throw RoutingError(.invalidSpec, "name '\(displayable(name))' contains \(bad.codePointName), a control, bidirectional or invisible character")
        }
        if schemes.count > 64 || hosts.count > 256 || paths.count > 256 {
            throw RoutingError(.invalidSpec, "a spec may list at most 64 schemes, 256 hosts and 256 paths")
        }
        var hostPatterns: [HostPattern] = []
        for host in hosts { hostPatterns.append(try HostPattern(host)) }
        var pathGlobs: [PathGlob] = []
        for path in paths { pathGlobs.append(try PathGlob(path)) }
        lists = Lists(schemes: Array(Set(schemes.map { $0.lowercased() })).sorted(), hosts: hostPatterns, paths: pathGlobs, name: name)
        self.priority = priority
        self.scope = scope
    }

    /// The bytes of text the spec holds, each item counted with the eight
    /// bytes of length and padding it takes on the wire: what a registry
    /// budgets, so that listing every spec fits in one D-Bus message.
    public var textSize: Int {
        func size(_ items: [String]) -> Int { items.reduce(0) { $0 + $1.utf8.count + 8 } }
        return size(schemes) + size(hosts.map { $0.description }) + size(paths.map { $0.description }) + name.utf8.count + 8
    }

    /// Whether this spec matches `url` (scheme, host and path).
    public func matches(_ url: ValidatedURL) -> Bool {
        // `*` is never listed with another scheme (see `init`): the first
        // tells, where comparing with `["*"]` made an array for every handler.
        (schemes.first == "*" || schemes.contains(url.scheme))
            && (hosts.isEmpty || hosts.contains { $0.matches(url.host, port: url.port) })
            && (paths.isEmpty || paths.contains { $0.matches(url.path) })
    }
}

/// `example.com` (exactly that host) or `*.example.com` (any subdomain, not
/// `example.com` itself), optionally with a port (`localhost:3000`); `[::1]`
/// for IPv6. The host is read as a browser reads it (`HostName`), so
/// `BÜCHER.example.` and `xn--bcher-kva.example` are one pattern, and
/// `127.1` is `127.0.0.1`. Without a port, any port matches.
public struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    /// The host or, for a wildcard, the domain below which subdomains match:
    /// normalised, as `URLHost` holds it.
    public let domain: String
    /// Whether it matches the subdomains of `domain` (`*.domain`) rather than the host itself.
    public let isWildcard: Bool
    /// Whether `domain` is an IPv6 address.
    public let isIPv6: Bool
    /// The port a URL must use (its scheme's default counts), or any when `nil`.
    public let port: UInt16?

    /// Reads a pattern: a host, `*.domain` or an IP address, optionally with `:port`.
    /// - Throws: `RoutingError.invalidSpec` saying what is wrong with it.
    public init(_ text: String) throws(RoutingError) {
        func refuse(_ problem: String) -> RoutingError {
            RoutingError(.invalidSpec, "host pattern '\(displayable(text.prefix(64)))' \(problem)")
        }
        let wildcard = text.hasPrefix("*.")
        var host = wildcard ? Substring(text.dropFirst(2)) : Substring(text)
        // A bare IPv6 address (`::1`) is accepted as if bracketed; it has no port.
        if !host.hasPrefix("["), host.utf8.filter({ $0 == UInt8(ascii: ":") }).count >= 2 { host = "[" + host + "]" }
        let split = HostAndPort(host)
        var port: UInt16?
        if let digits = split.port {
            guard let value = HostAndPort.number(digits) else { throw refuse("has a port that is not a number from 0 to 65535") }
            port = value
        }
        host = split.host
        if host.isEmpty { throw refuse("is empty") }
        if host.utf8.count > 253 + 2 { throw refuse("is longer than a host name can be") }
        if host.contains("*") { throw refuse("may only use '*' as its whole first label ('*.example.com')") }
        if host.contains(where: { " /?#@\\".contains($0) || $0.isNewline }) { throw refuse("contains a character hosts cannot have") }
        switch HostName.parse(host) {
        case .success(let parsed):
            if case .ipv6 = parsed, wildcard { throw refuse("puts '*.' before an IPv6 address") }
            if case .ipv4 = parsed, wildcard { throw refuse("puts '*.' before an IPv4 address") }
            self.isIPv6 = if case .ipv6 = parsed { true } else { false }
            self.domain = parsed.matchingKey
        case .failure(let failure):
            throw refuse("is not a host a browser would go to: \(failure.reason)")
        }
        self.isWildcard = wildcard
        self.port = port
    }

    /// Whether a URL with `host` and `port` (its scheme's default when not written) matches.
    public func matches(_ host: URLHost?, port: UInt16? = nil) -> Bool {
        if let wanted = self.port, wanted != port { return false }
        switch host {
        case .name(let name)?:
            return !isIPv6 && (isWildcard ? Self.isSubdomain(name.utf8, of: domain.utf8) : name == domain)
        case .ipv6(let address)?:
            return isIPv6 && address == domain
        case .invalid?, nil:
            return false
        }
    }

    public var description: String {
        let host = isIPv6 ? "[\(domain)]" : isWildcard ? "*." + domain : domain
        return port.map { host + ":\($0)" } ?? host
    }

    /// `name` ends with `.` + `domain` and is longer than that: byte-wise,
    /// since both are normalised ASCII.
    private static func isSubdomain(_ name: String.UTF8View, of domain: String.UTF8View) -> Bool {
        guard name.count > domain.count + 1 else { return false }
        let start = name.index(name.endIndex, offsetBy: -domain.count)
        return name[name.index(before: start)] == UInt8(ascii: ".") && name[start...].elementsEqual(domain)
    }
}
