import DispatcherAPI
import Router
import XDG
import DBus
import Glibc
import Spawn

/// Starts a desktop application with a URL.
///
/// `DBusActivatable` entries get `org.freedesktop.Application.Open` on their
/// bus name; others are spawned from their `Exec` line (no shell) in their own
/// session, with stdio on /dev/null and no other inherited descriptors, and
/// then (without delaying the answer) moved into their own systemd scope when
/// a user manager is on the bus, so that stopping the dispatcher never stops
/// a browser it started.
public final class Launcher: Sendable {
    private let environment: [String: String]
    private let connection: Connection?
    private let reaper: ChildReaper
    private let warn: @Sendable (String) -> Void

    /// - Parameters:
    ///   - environment: this process's environment; refreshed from the
    ///     systemd user manager at each launch when one answers.
    ///   - connection: the session bus, for D-Bus activation and systemd.
    ///   - warn: where problems that do not stop the launch are reported.
    public init(environment: [String: String], connection: Connection?, reaper: ChildReaper,
                warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.environment = environment
        self.connection = connection
        self.reaper = reaper
        self.warn = warn
    }

    /// Why a launch failed, for people.
    public struct Failure: Error, Equatable, Sendable {
        /// Why, for people.
        public let reason: String
    }

    /// Opens `admitted` with `entry`. Only `LaunchGate` makes an `AdmittedURL`,
    /// so nothing reaches an application without passing it.
    /// - Parameter options: the application's own options before the URL (a browser
    ///   profile's); a `DBusActivatable` entry is then run from its `Exec`, which can take them.
    /// - Returns: the PID of a spawned process, `nil` for D-Bus activation.
    @discardableResult
    public func open(
        _ admitted: AdmittedURL, with entry: DesktopEntry, options: [String] = [], activationToken: String?
    ) async throws(Failure) -> pid_t? {
        let url = admitted.url.text
        let localPath = admitted.file?.path
        if entry.dbusActivatable, options.isEmpty, let connection, let name = try? BusName(entry.busName) {
            try await activate(name, url: url, token: activationToken, on: connection)
            return nil
        }
        guard let exec = entry.exec else { throw Failure(reason: "\(entry.id) has no Exec line") }
        // Asked for now, answered while the Exec line is read and the program found.
        let request = requestEnvironment()
        var argv: [String]
        do {
            argv = try ExecLine(exec).arguments(for: url, localPath: localPath, entry: entry, options: options)
        } catch {
            throw Failure(reason: "\(entry.id): invalid Exec line: \(error)")
        }
        let environment = await launchEnvironment(token: activationToken, from: request)
        if entry.terminal {
            guard findExecutable("xdg-terminal-exec", path: environment["PATH"]) != nil else {
                throw Failure(reason: "\(entry.id) runs in a terminal (Terminal=true), and xdg-terminal-exec is not installed")
            }
            argv = ["xdg-terminal-exec"] + argv
        }
        guard let program = findExecutable(argv[0], path: environment["PATH"]) else {
            throw Failure(reason: "\(entry.id): program '\(argv[0])' not found on PATH")
        }
        let pid: pid_t
        do {
            let environment = environment.map(Self.assignment)
            // A program only just installed may be briefly busy; the wait stays within the walk's deadline.
            pid = try await retryingWhileTextFileBusy(within: LaunchDeadline.timeout(atMost: .milliseconds(500)) ?? .zero) { () throws(SpawnError) in
                try spawn(program, arguments: argv, environment: environment, newSession: true)
            }
        } catch {
            throw Failure(reason: "\(entry.id): \(error)")
        }
        reaper.adopt(pid)
        // The app runs: the caller is answered now, and the scope is made
        // meanwhile (within the same walk deadline, which the task inherits).
        if let connection { Task { await moveToScope(pid, entry: entry, on: connection) } }
        return pid
    }

    /// The systemd user manager's environment, asked for before the work
    /// that precedes a spawn, so that its round trip overlaps that work
    /// instead of following it; only for a spawn, so that a URL nothing
    /// opens, or a D-Bus activation, costs no call. `systemd1.Manager.Environment`
    /// emits no change signal, so it is asked for at each launch rather than kept.
    struct EnvironmentRequest: Sendable {
        fileprivate let sent: SentCall?
    }

    /// Sends the request for `org.freedesktop.systemd1.Manager.Environment`,
    /// which holds what the session imported after we started (`DISPLAY`,
    /// `WAYLAND_DISPLAY`, …). Never auto-started: without a user manager the
    /// bus answers at once.
    func requestEnvironment() -> EnvironmentRequest {
        guard let connection, let timeout = LaunchDeadline.timeout(atMost: .seconds(1)),
              let message = try? Message.methodCall(
                  destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1", interface: .properties,
                  member: "Get", arguments: [.string("org.freedesktop.systemd1.Manager"), .string("Environment")])
        else { return EnvironmentRequest(sent: nil) }
        message.setNoAutoStart()
        return EnvironmentRequest(sent: connection.send(call: message, timeout: timeout))
    }

    /// `NAME=value`, made in one allocation (interpolated, each grew its string).
    private static func assignment(_ variable: (key: String, value: String)) -> String {
        var text = variable.key
        text.reserveCapacity(variable.key.utf8.count + 1 + variable.value.utf8.count)
        text += "="
        text += variable.value
        return text
    }

    /// The environment for a launched application.
    func launchEnvironment(token: String?, from request: EnvironmentRequest) async -> [String: String] {
        var result = environment
        if let manager = await managerEnvironment(from: request) {
            result.merge(manager) { _, fromManager in fromManager }
        }
        return LaunchEnvironment.forLaunch(from: result, token: token)
    }

    private func managerEnvironment(from request: EnvironmentRequest) async -> [String: String]? {
        guard
            let reply = try? await request.sent?.reply().arguments(),
            let entries = (try? reply.decode(Variant.self))?.get([String].self)
        else { return nil }
        var result: [String: String] = [:]
        for entry in entries {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            result[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return result
    }

    private func activate(_ name: BusName, url: String, token: String?, on connection: Connection) async throws(Failure) {
        var platformData: [String: Variant] = [:]
        if let token {
            platformData[DispatcherAPI.OptionKey.activationToken] = Variant(token)
            platformData[DispatcherAPI.OptionKey.desktopStartupID] = Variant(token)
        }
        let path = "/" + name.rawValue.replacingDots()
        guard let timeout = LaunchDeadline.timeout(atMost: .seconds(10)) else {
            throw Failure(reason: "\(name).desktop was not activated: the walk deadline had passed")
        }
        do {
            _ = try await connection.call(
                name, try ObjectPath(path), DispatcherAPI.applicationInterface, DispatcherAPI.ApplicationMember.open,
                [.array(.string, [.string(url)]), platformData.dbusValue], timeout: timeout)
        } catch {
            throw Failure(reason: "\(name).desktop could not be activated: \(error.message)")
        }
    }

    /// Puts the process into `app-openurld-APPID-RANDOM.scope`, per systemd's
    /// desktop-environment conventions. Failure is reported, not fatal: the
    /// app is running; it merely stays in the dispatcher's cgroup.
    private func moveToScope(_ pid: pid_t, entry: DesktopEntry, on connection: Connection) async {
        let unit = "app-openurld-\(systemdEscaped(entry.busName))-\(UInt32.random(in: 0...UInt32.max)).scope"
        let properties: Value = .array(.structure([.string, .variant]), [
            .structure([.string("PIDs"), .variant(.array(.uint32, [.uint32(UInt32(pid))]))]),
            .structure([.string("Description"), .variant(.string("\(entry.name) launched by openurld"))]),
            .structure([.string("CollectMode"), .variant(.string("inactive-or-failed"))]),
        ])
        let auxiliary: Value = .array(.structure([.string, .array(.structure([.string, .variant]))]), [])
        guard let timeout = LaunchDeadline.timeout(atMost: .seconds(2)) else {
            warn("\(entry.id) (pid \(pid)) stays in openurld's cgroup: the walk deadline passed before its scope could be made")
            return
        }
        do {
            _ = try await connection.call(
                "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                "StartTransientUnit", [.string(unit), .string("fail"), properties, auxiliary], timeout: timeout,
                autoStart: false)
        } catch where error.name == .serviceUnknown || error.name == .nameHasNoOwner {
            // No user manager: the spawn in its own session is all we can do.
        } catch {
            warn("could not move \(entry.id) (pid \(pid)) into its own scope: \(error.message)")
        }
    }
}

/// Escapes an application ID for a unit name: `-` becomes `\x2d`, as systemd does.
func systemdEscaped(_ id: String) -> String {
    var result = ""
    for byte in id.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"):
            result.append(Character(Unicode.Scalar(byte)))
        default:
            result += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }
    }
    return result
}

extension String {
    /// The object path of a bus name, per the Application interface: `.` → `/`, `-` → `_`.
    fileprivate func replacingDots() -> String {
        String(map { $0 == "." ? "/" : $0 == "-" ? "_" : $0 })
    }
}
