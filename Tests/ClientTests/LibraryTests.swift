
import DBus
import Desktop
import DispatcherAPI
import Foundation
@testable import OpenURL
import OpenURLDaemon
import Router
import Routing
import Synchronization
import TestSupport
import Testing
import XDG

/// The `OpenURL` library against the real dispatcher on a private bus.
/// Serialized: the library keeps one session connection per process.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct LibraryTests {
    final class Fallback: URLOpener {
        let opened = Mutex<[String]>([])
        func application(for url: ValidatedURL) -> String? { "recorder.desktop" }
        func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult {
            opened.withLock { $0.append(url.text) }
            return url.scheme == "https" ? .opened(application: "recorder.desktop") : .noApplication(reason: "none")
        }
        func open(_ url: ValidatedURL, with target: Target, activationToken: String?) async -> LaunchResult {
            let id = target.description
            opened.withLock { $0.append(id + " " + url.text) }
            return .opened(application: id)
        }
        func candidates(for url: ValidatedURL, offering: [Target]) -> [ChooserCandidate] {
            [ChooserCandidate(target: .profile("recorder.desktop", profile: "work"), name: "Recorder (work)", icon: "")]
        }
    }

    /// A person who always picks the first target offered.
    struct FirstChoice: Chooser {
        func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice {
            .target(request.candidates[0].target, url: request.url, activationToken: nil, remember: .none)
        }
    }

    /// Serves the dispatcher on `bus` from a fresh connection (again after a "restart").
    static func startDispatcher(on bus: PrivateBus, _ fallback: Fallback) async throws -> Connection {
        let connection = try await bus.connect()
        _ = try await Daemon.serve(on: connection, configuration: .init(), opener: fallback, logger: .silent)
        return connection
    }

    func withDispatcher(_ body: (PrivateBus, Fallback, Connection) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let fallback = Fallback()
            let daemon = try await Self.startDispatcher(on: bus, fallback)
            await SessionBus.shared.use(address: bus.address)
            defer { daemon.close() }
            try await body(bus, fallback, daemon)
            await SessionBus.shared.use(address: nil)
        }
    }

    /// `OpenURLOptions(ask: true)`: the chooser is asked before anything else.
    @Test func theAskOptionShowsTheChooserFirst() async throws {
        try await withPrivateBus { bus in
            let fallback = Fallback()
            let daemon = try await bus.connect()
            defer { daemon.close() }
            _ = try await Daemon.serve(on: daemon, configuration: .init(), opener: fallback, logger: .silent,
                                       asking: Dispatcher.Asking(chooser: FirstChoice()))
            await SessionBus.shared.use(address: bus.address)
            let outcome = try await OpenURLAction.open(URL(string: "https://example.com/a")!, options: .init(ask: true))
            #expect(outcome.accepted && outcome.outcome == .handled && outcome.application == "recorder.desktop@work")
            #expect(fallback.opened.withLock { $0 } == ["recorder.desktop@work https://example.com/a"])
            let plain = try await OpenURLAction.open(URL(string: "https://example.com/b")!, options: .init())
            #expect(plain.outcome == .opened && plain.application == "recorder.desktop", "no rule asks: the default opens it")
            await SessionBus.shared.use(address: nil)
        }
    }

    @Test func systemActionOpensThroughTheDispatcher() async throws {
        try await withDispatcher { _, fallback, _ in
            let openURL = OpenURLAction.system
            #expect(await openURL(URL(string: "https://example.com/x")!))
            #expect(await openURL(URL(string: "gopher://example.com/")!) == false)
            let outcome = try await OpenURLAction.open(URL(string: "gopher://x")!, options: .init(activationToken: "t"))
            #expect(outcome.outcome == .noApplication && !outcome.accepted && outcome.message == "none")
            #expect(fallback.opened.withLock { $0 } == ["https://example.com/x", "gopher://example.com/", "gopher://x"])
            let done = Mutex<Bool?>(nil)
            await withCheckedContinuation { continuation in
                openURL(URL(string: "https://completion.example/")!) { accepted in
                    done.withLock { $0 = accepted }
                    continuation.resume()
                }
            }
            #expect(done.withLock { $0 } == true)
        }
    }

    @Test func localActionsDecideFirstLikeSwiftUI() async throws {
        try await withDispatcher { _, fallback, _ in
            let openURL = OpenURLAction { url in
                switch url.host {
                case "blocked.example": .discarded
                case "mine.example": .handled
                case "old.example": .systemAction(URL(string: "https://new.example/")!)
                default: .systemAction
                }
            }
            #expect(await openURL(URL(string: "https://blocked.example/")!) == false)
            #expect(await openURL(URL(string: "https://mine.example/")!))
            #expect(await openURL(URL(string: "https://old.example/")!))
            #expect(await openURL(URL(string: "https://other.example/")!))
            #expect(fallback.opened.withLock { $0 } == ["https://new.example/", "https://other.example/"])
        }
    }

    @Test func registeredClosuresAreAskedAndObeyed() async throws {
        try await withDispatcher { bus, fallback, _ in
            let seen = Mutex<[(String, String)]>([])
            let registration = try await OpenURLAction.register(URLHandlerMatch(schemes: ["https"], hosts: ["zoom.us"], name: "zoom")) { url, context in
                seen.withLock { $0.append((url.absoluteString, context.originalURL)) }
                return .systemAction(URL(string: "https://zoom.example/join/" + url.lastPathComponent)!)
            }
            let blocker = try await OpenURLAction.register(URLHandlerMatch(schemes: ["https"], hosts: ["ads.example"])) { _, _ in .discarded }
            // Another program opens the URLs.
            let other = try await bus.connect()
            defer { other.close() }
            let client = DispatcherClient(connection: other)
            let rewritten = try await client.open("https://zoom.us/j/42")
            #expect(rewritten.accepted && rewritten.finalURL == "https://zoom.example/join/42")
            #expect(try await client.open("https://ads.example/x").outcome == .discarded)
            #expect(seen.withLock { $0.map(\.0) } == ["https://zoom.us/j/42"])
            #expect(fallback.opened.withLock { $0 } == ["https://zoom.example/join/42"])
            #expect(try await client.handlers().count == 2)

            await blocker.cancel()
            #expect(try await client.handlers().map(\.name) == ["zoom"])
            #expect(try await client.open("https://ads.example/x").outcome == .opened)
            _ = registration
        }
    }

    @Test func releasingTheRegistrationUnregisters() async throws {
        try await withDispatcher { bus, _, _ in
            var registration: URLHandlerRegistration? = try await OpenURLAction.register(URLHandlerMatch(schemes: ["https"])) { _, _ in .handled }
            let observer = DispatcherClient(connection: try await bus.connect())
            #expect(try await observer.handlers().count == 1)
            #expect(registration?.id != nil)
            registration = nil
            for _ in 0..<200 where try await observer.handlers().count > 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await observer.handlers().isEmpty)
            observer.connection.close()
        }
    }

    @Test func registrationsComeBackWhenTheDispatcherRestarts() async throws {
        try await withDispatcher { bus, fallback, daemon in
            let asked = Mutex(0)
            let registration = try await OpenURLAction.register(URLHandlerMatch(schemes: ["https"], name: "survivor")) { _, _ in
                asked.withLock { $0 += 1 }
                return .handled
            }
            let firstID = registration.id
            daemon.close()  // the dispatcher dies
            let restarted = try await Self.startDispatcher(on: bus, fallback)
            defer { restarted.close() }
            let observer = DispatcherClient(connection: try await bus.connect())
            defer { observer.connection.close() }
            for _ in 0..<300 where try await observer.handlers().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await observer.handlers().map(\.name) == ["survivor"])
            #expect(try await observer.open("https://after-restart.example/").outcome == .handled)
            #expect(asked.withLock { $0 } == 1)
            #expect(registration.id != nil && firstID != nil)
            _ = registration
        }
    }
}
