import DBus
import Dispatch
import DispatcherAPI
import Glibc
import Posix
import Router
import SafeText
import Synchronization

/// Serves `org.openurld.Chooser1` for a chooser program (the GTK window, the
/// dmenu adapter): reads each `Choose` call, hands it to the program, sends
/// its answer, and exits once idle, since D-Bus activation starts it again.
///
/// Requests are answered concurrently; a program that shows one menu at a
/// time queues them itself.
public final class ChooserService: Sendable {
    /// How a program answers one request.
    public typealias Ask = @Sendable (DispatcherAPI.ChooserRequest) async -> DispatcherAPI.ChooserReply

    /// Reads `--idle-exit`'s value: seconds, 0 for never.
    /// - Returns: `nil` when `text` is not such a number.
    public static func idleExit(_ text: String) -> Duration?? {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else { return nil }
        return .some(seconds == 0 ? nil : .milliseconds(Int64((seconds * 1000).rounded())))
    }

    let connection: Connection
    private let ask: Ask
    private let state = Mutex<(inFlight: Int, lastActivity: ContinuousClock.Instant)>((0, .now))

    init(connection: Connection, ask: @escaping Ask) {
        self.connection = connection
        self.ask = ask
    }

    /// The exported interface, as `docs/org.openurld.Chooser1.xml` defines it.
    var interface: ExportedInterface {
        return ExportedInterface(DispatcherAPI.chooserInterface, methods: [
            ExportedMethod(
                DispatcherAPI.chooseMember,
                arguments: DispatcherAPI.Signatures.choose.arguments, results: DispatcherAPI.Signatures.choose.results,
                asyncHandler: { [self] call throws(DBusError) in
                    let request = try DispatcherAPI.ChooserRequest(arguments: call.arguments)
                    state.withLock { $0.inFlight += 1 }
                    defer { state.withLock { $0 = ($0.inFlight - 1, .now) } }
                    return await ask(request).arguments
                }),
        ])
    }

    /// Writes a line as `<N>line` to standard error, which journald reads
    /// with its priority: what the chooser programs pass as `run`'s `log`.
    public static func journalLine(_ priority: Int, _ line: String) {
        try? FileDescriptor.standardError.writeAll(("<\(priority)>" + line + "\n").utf8)
    }

    /// Connects (to `address`, or the session bus), exports the interface,
    /// takes the name, and serves until idle for `idleExit` (`nil`: never)
    /// or until the bus goes away.
    /// - Parameter log: where the service's lines go, with their syslog
    ///   priority (3 error, 6 info); the program decides (standard error,
    ///   for the journal): the library never writes anywhere itself.
    /// - Returns: the exit status: 0 when idle, 1 when the bus could not be
    ///   used or the name is taken.
    public static func run(
        program: String, address: String?, environment: [String: String], idleExit: Duration?,
        log: @escaping @Sendable (_ priority: Int, _ line: String) -> Void, ask: @escaping Ask
    ) async -> Int32 {
        func fail(_ message: String) -> Int32 {
            log(3, "\(program): \(displayable(message))")
            return 1
        }
        let (events, event) = AsyncStream.makeStream(of: Int32.self)
        // SIGTERM and SIGINT (a session ending, `systemctl stop`) end the
        // service as idleness does: status 0, said in the log. Set before the
        // name is owned: whoever saw it owned may signal at once.
        let stops = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { event.yield(128 + number) }
            source.resume()
            return source
        }
        defer { stops.forEach { $0.cancel() } }
        let connection: Connection
        do {
            if let address {
                connection = try await Connection.connect(to: address)
            } else {
                connection = try await Connection.session(environment: environment)
            }
        } catch {
            return fail("cannot connect to the bus: \(error.message)")
        }
        let service = ChooserService(connection: connection, ask: ask)
        connection.onDisconnect { _ in event.yield(1) }
        connection.export([service.interface], at: DispatcherAPI.chooserObjectPath)
        do {
            switch try await connection.requestName(DispatcherAPI.chooserBusName) {
            case .primaryOwner, .alreadyOwner: break
            case .exists, .inQueue: return fail("\(DispatcherAPI.chooserBusName) is already owned by another chooser")
            }
        } catch {
            return fail("cannot own \(DispatcherAPI.chooserBusName): \(error.message)")
        }
        let idleWatch = idleExit.map { limit in
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: min(limit / 4, .seconds(1)))
                    let idle = service.state.withLock { $0.inFlight == 0 && .now - $0.lastActivity >= limit }
                    if idle { event.yield(0) }
                }
            }
        }
        defer { idleWatch?.cancel() }
        for await status in events {
            if status > 128 {
                log(6, "\(program): received \(status == 128 + SIGTERM ? "SIGTERM" : "SIGINT"); exiting")
                connection.close()
                return 0
            }
            if status == 0 {
                // Released first, so that a new request starts a new chooser instead of reaching this one.
                try? await connection.releaseName(DispatcherAPI.chooserBusName)
                if service.state.withLock({ $0.inFlight }) > 0 { continue }
            }
            connection.close()
            return status
        }
        return 0
    }
}
