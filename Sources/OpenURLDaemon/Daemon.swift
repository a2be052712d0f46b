import DBus
import Desktop
import Dispatch
import DispatcherAPI
import Glibc
import Router
import Rules
import XDG

/// Runs the daemon from start to exit.
public enum Daemon {
    /// What the main loop acts on: a reason to stop, or SIGHUP.
    enum Event: Sendable {
        case reload
        case signal(Int32)
        case nameLost
        case idle
        case disconnected(DBusError)
    }

    /// Serves `org.openurld.Dispatcher1` until SIGTERM/SIGINT, until another
    /// instance replaces it, or until the bus connection drops.
    /// - Returns: the process exit status.
    /// - Parameter launcher: makes the fallback once the bus is connected.
    public static func run(
        _ options: DaemonOptions, environment: [String: String],
        opener makeOpener: @Sendable (Connection) -> any URLOpener, logger: Logger,
        reaper: ChildReaper = ChildReaper()
    ) async -> Int32 {
        // Every signal disposition is set before the name is claimed: systemd
        // counts a Type=dbus service ready once it owns its name, and may send
        // ExecReload='s SIGHUP at once. A SIGHUP that early is handled once
        // serving starts (the rules are freshly loaded then anyway).
        let (stops, stop) = AsyncStream.makeStream(of: Event.self)
        let signalSources = [SIGTERM, SIGINT, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.yield(number == SIGHUP ? .reload : .signal(number)) }
            source.resume()
            return source
        }
        defer { signalSources.forEach { $0.cancel() } }

        let connection: Connection
        do {
            if let address = options.address {
                connection = try await Connection.connect(to: address)
            } else {
                connection = try await Connection.session(environment: environment)
            }
        } catch {
            logger.error("cannot connect to the bus: \(error.message)")
            return 1
        }
        // From now on the line of each URL is written once the loop is idle,
        // and every line kept is written before the daemon exits.
        logger.batch?.keepLines(on: connection)
        defer { logger.batch?.stopKeeping() }
        connection.onDisconnect { stop.yield(.disconnected($0)) }
        // A URL is dispatched on the thread that read it, and a handler's
        // answer continues the walk on the thread that read it.
        connection.answerCallsOnLoop()
        connection.onDroppedReply { [logger] dropped in
            logger.warning(
                "dropped a reply to \(dropped.member?.rawValue ?? "a call") sent to \(dropped.destination) from "
                    + "\(dropped.sender?.rawValue ?? "nobody"), which the call may not be answered by (a forgery?)")
        }

        var configuration = Dispatcher.Configuration()
        configuration.handlerTimeout = options.handlerTimeout
        configuration.walkDeadline = options.walkDeadline
        configuration.limits = .init(perOwner: options.maxHandlersPerClient, total: options.maxHandlers)
        configuration.verbose = options.verbose
        configuration.chooserDeadline = options.chooserDeadline
        // Rules are loaded before the name is taken, so that no call finds them missing.
        let base = BaseDirectories(environment: environment)
        let ruleDirectories = RuleFiles.directories(base)
        let asking = Dispatcher.Asking(
            chooser: BusChooser(connection: connection), file: options.remember ? RememberedChoiceFile(base: base) : nil,
            ruleDirectories: ruleDirectories)
        let dispatcher: Dispatcher
        let opener = makeOpener(connection)
        // Failures no caller will show the person go to the desktop's notifications.
        let notices = DesktopNotifications(
            connection: connection, base: base,
            openPreferences: PreferencesLauncher.starter(environment: environment, reaper: reaper, warn: { logger.warning($0) }),
            log: { logger.info($0) })
        // Notifications are not worth failing to serve for, nor waiting for:
        // their signals are followed while the name is taken (three AddMatch
        // round trips off the start-up); without them, no action is offered.
        let noticesStarting = Task {
            do throws(DBusError) { try await notices.start() } catch {
                logger.warning("cannot follow the notification server's signals (\(error.message)); notifications offer no action")
            }
        }
        defer { noticesStarting.cancel() }
        do {
            dispatcher = try await serve(
                on: connection, configuration: configuration, opener: opener, logger: logger,
                asking: asking, notices: notices, rules: RuleFiles.load(from: ruleDirectories), replace: options.replace,
                onNameLost: { stop.yield(.nameLost) })
        } catch {
            logger.error(error.message)
            connection.close()
            return 1
        }
        logger.info("openurld \(DispatcherAPI.version) serving \(DispatcherAPI.busName) as \(connection.uniqueName)")

        // Rules are loaded again when their files change, or on SIGHUP.
        let reloadRules: @Sendable () -> Void = { dispatcher.replaceRules(with: RuleFiles.load(from: ruleDirectories)) }
        let changed: @Sendable () -> Void = {
            logger.info("rule files changed; reloading")
            reloadRules()
        }
        let watcher: AnyObject
        if let watching = FileWatcher(directories: ruleDirectories, onChange: changed) {
            watcher = watching
        } else {
            // Without inotify (the per-user instance limit, say), polling still notices edits.
            logger.warning("cannot watch the rule directories (inotify: \(String(cString: strerror(errno)))); checking them every 2 s instead")
            watcher = FilePoller(directories: ruleDirectories, onChange: changed)
        }
        defer { withExtendedLifetime(watcher) {} }

        // The defaults are read now and whenever a mimeapps.list changes, so
        // that the application behind the dispatcher is recorded before a
        // settings panel replaces it (see PreviousDefaults).
        let defaultsFiles = opener.defaultsFiles
        let defaultsWatcher = watch(defaultsFiles, logger: logger) { opener.defaultsChanged() }
        defer { withExtendedLifetime(defaultsWatcher) {} }
        opener.defaultsChanged()
        let idleWatch = options.idleExit.map { limit in
            Task {
                let step = min(max(limit / 4, .milliseconds(50)), .seconds(5))
                while !Task.isCancelled {
                    try? await Task.sleep(for: step)
                    if let idle = dispatcher.idleFor, idle >= limit { stop.yield(.idle) }
                }
            }
        }
        defer { idleWatch?.cancel() }

        for await event in stops {
            switch event {
            case .reload:
                logger.info("received SIGHUP; reloading the rules")
                reloadRules()
            case .disconnected(let error):
                logger.error("lost the bus connection (\(error.message)); exiting so that the service manager restarts openurld")
                return 1
            case .idle:
                logger.info("idle for \(options.idleExit!) with no handlers; exiting (D-Bus activation restarts openurld)")
                await finish(dispatcher, connection, options, releasing: true, logger: logger)
                return 0
            case .nameLost:
                logger.info("another instance took over \(DispatcherAPI.busName); finishing and exiting")
                await finish(dispatcher, connection, options, releasing: false, logger: logger)
                return 0
            case .signal(let number):
                logger.info("received \(number == SIGTERM ? "SIGTERM" : "SIGINT"); finishing calls in flight and exiting")
                await finish(dispatcher, connection, options, releasing: true, logger: logger)
                return 0
            }
        }
        return 0
    }

    /// Watches `files` (inotify, else polling); `nil` when there are none.
    private static func watch(
        _ files: [(directory: String, name: String)], logger: Logger, onChange: @escaping @Sendable () -> Void
    ) -> AnyObject? {
        guard !files.isEmpty else { return nil }
        var directories: [String] = []
        for file in files where !directories.contains(file.directory) { directories.append(file.directory) }
        let names = Set(files.map(\.name))
        if let watching = FileWatcher(directories: directories, names: { names.contains($0) }, onChange: onChange) { return watching }
        logger.warning("cannot watch the mimeapps.list files (inotify: \(String(cString: strerror(errno)))); checking them every 2 s instead")
        return FilePoller(directories: directories, names: { names.contains($0) }, onChange: onChange)
    }

    /// Sets the dispatcher up on `connection`: follows departing clients,
    /// exports the object, then claims the bus name.
    ///
    /// - Parameters:
    ///   - rules: the rules to start with.
    ///   - replace: take the name from a running instance.
    ///   - onNameLost: called when another instance takes the name over.
    /// - Throws: a `DBusError` explaining why the daemon cannot serve, e.g. the
    ///   name is owned by another instance.
    public static func serve(
        on connection: Connection, configuration: Dispatcher.Configuration, opener: any URLOpener,
        logger: Logger, asking: Dispatcher.Asking = .init(), notices: any FailureNotices = NoFailureNotices(),
        rules: RuleFiles.Load? = nil, replace: Bool = false, onNameLost: @escaping @Sendable () -> Void = {}
    ) async throws(DBusError) -> Dispatcher {
        let dispatcher = Dispatcher(
            connection: connection, configuration: configuration, opener: opener, logger: logger, asking: asking,
            notices: notices)
        if let rules { dispatcher.replaceRules(with: rules) }
        // Follow departures before anyone can reach us: every registration is
        // then processed before the signal saying its owner left.
        _ = try await connection.watchNameOwners { change in
            if change.name.isUnique, change.newOwner == nil { dispatcher.ownerLeft(change.name) }
        }
        _ = try await connection.subscribe(
            to: MatchRule(sender: .bus, interface: "org.freedesktop.DBus", member: "NameLost", arguments: [0: DispatcherAPI.busName.rawValue])
        ) { _ in onNameLost() }
        connection.export(dispatcher.interfaces, at: DispatcherAPI.objectPath)

        switch try await connection.requestName(DispatcherAPI.busName, allowReplacement: true, replaceExisting: replace) {
        case .primaryOwner, .alreadyOwner:
            return dispatcher
        case .exists, .inQueue:
            let owner = (try? await connection.owner(of: DispatcherAPI.busName))?.rawValue ?? "another connection"
            connection.unexport(DispatcherAPI.objectPath)
            throw .failed("\(DispatcherAPI.busName) is already owned by \(owner) (another openurld?); use --replace to take over")
        }
    }

    /// Gives up the name (new callers reach a new instance through activation),
    /// answers the walks in flight, then closes.
    ///
    /// Each walk ends by its own deadline, launches included (the launcher's
    /// waits are cut to fit it), so waiting `walkDeadline` plus a second is
    /// enough. Should a walk still run then, it is cancelled, which leaves it
    /// `undecided`: its caller is answered, and nothing is opened after
    /// shutdown began. Closing writes out the replies still queued.
    private static func finish(
        _ dispatcher: Dispatcher, _ connection: Connection, _ options: DaemonOptions, releasing: Bool, logger: Logger
    ) async {
        if releasing { try? await connection.releaseName(DispatcherAPI.busName) }
        // A walk waiting for the person is not waited for: the chooser's
        // answer is lost, so that walk opens nothing.
        if await !dispatcher.drain(before: .now + options.walkDeadline + .seconds(1)) {
            logger.warning("\(dispatcher.walksInFlight) walk(s) still running at the shutdown limit; cancelling them")
            connection.cancelCallsInFlight()
            await dispatcher.drain(before: .now + .seconds(1))
        }
        if await !connection.answerCallsInFlight(before: .now + .seconds(1)) {
            logger.warning("\(connection.callsInFlight) call(s) still unanswered; their callers get NoReply")
        }
        connection.close()
    }
}
