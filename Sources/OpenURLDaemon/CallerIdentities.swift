import DBus
import FileAccess
import Synchronization

/// Best-effort application IDs of callers, cached per connection.
///
/// Taken from the caller's systemd unit when it runs in an app scope or
/// service (`app-gnome-org.gnome.Terminal-1234.scope`, Flatpak's
/// `app-flatpak-org.mozilla.firefox-5678.scope`), else from its process name.
/// Handlers get it as `caller-app-id`; it is a hint, never a credential.
final class CallerIdentities: Sendable {
    private let connection: Connection
    private let cache = Mutex<[BusName: String]>([:])

    init(connection: Connection) { self.connection = connection }

    /// The app ID of `caller` when it was looked up before, without waiting.
    func knownAppID(of caller: BusName) -> String? {
        cache.withLock { $0[caller] }
    }

    func appID(of caller: BusName) async -> String {
        if let known = knownAppID(of: caller) { return known }
        var found = ""
        if let reply = try? await connection.callBus("GetConnectionUnixProcessID", [.string(caller.rawValue)], timeout: .seconds(1)),
            let pid = try? reply.decode(UInt32.self)
        {
            found = Self.appID(forProcess: pid)
        }
        cache.withLock { cache in
            if cache.count > 4096 { cache.removeAll() }  // bounded; callers come and go
            cache[caller] = found
        }
        return found
    }

    func forget(_ caller: BusName) {
        cache.withLock { _ = $0.removeValue(forKey: caller) }
    }

    static func appID(forProcess pid: UInt32) -> String {
        if let cgroup = try? FileSystem.read("/proc/\(pid)/cgroup"), let id = appID(fromCgroup: cgroup) { return id }
        guard let comm = try? FileSystem.read("/proc/\(pid)/comm") else { return "" }
        return String(comm.prefix { $0 != "\n" })
    }

    /// The application ID in a `/proc/PID/cgroup` file, from the innermost
    /// `app-…` unit of the unified hierarchy, per systemd's desktop conventions:
    /// `app[-LAUNCHER]-APPID[@RANDOM].service` or `app[-LAUNCHER]-APPID-RANDOM.scope`.
    static func appID(fromCgroup text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return nil }
        guard let unit = line.split(separator: "/").last(where: { $0.hasPrefix("app-") && ($0.hasSuffix(".scope") || $0.hasSuffix(".service")) })
        else { return nil }
        var name = unit.dropFirst(4)
        if name.hasSuffix(".scope") {
            name = name.dropLast(6)
            guard let dash = name.lastIndex(of: "-") else { return nil }
            name = name[..<dash]  // the random part
        } else {
            name = name.dropLast(8)
            if let at = name.firstIndex(of: "@") { name = name[..<at] }
        }
        // Dashes inside an application ID are escaped (\x2d), so a literal
        // dash left here ends the launcher prefix ("gnome-", "flatpak-").
        if let dash = name.firstIndex(of: "-") {
            name = name[name.index(after: dash)...]
        }
        let id = name.replacingOccurrences(of: "\\x2d", with: "-")
        return id.isEmpty ? nil : id
    }
}

extension Substring {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = self
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
