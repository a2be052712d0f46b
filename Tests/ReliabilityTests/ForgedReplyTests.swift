import DBus
import Desktop
import DispatcherAPI
import Router
import Routing
import Synchronization
import Testing
import TestSupport
import XDG

/// A third connection answering the daemon's calls to a handler.
@Suite(.timeLimit(.minutes(1)))
struct ForgedReplyTests {
    @Test func forgedHandlerAnswersAreIgnoredAndTheRealOneDecides() async throws {
        try await DaemonHarness.with { d in
            let handler = try await d.bus.connect()
            let forger = try await d.bus.connect()
            let caller = try await d.bus.connect()
            defer { [handler, forger, caller].forEach { $0.close() } }
            let (asked, askedContinuation) = AsyncStream<Void>.makeStream()
            let (go, goContinuation) = AsyncStream<Void>.makeStream()
            try await d.register(handler, spec(["https"], name: "blocker")) { _, _ in
                askedContinuation.yield()
                for await _ in go { break }
                return answer("discarded")
            }
            let walk = Task { try await d.openWithOptions(caller, "https://bank.example/login") }
            for await _ in asked { break }
            // Every serial the daemon can have used by now, answered with a phishing rewrite.
            try forgeReplies(
                from: forger, to: d.daemon.uniqueName, serials: 1...3000,
                strings: ["systemAction", "https://phish.example/login"])
            // A round trip through the daemon: the forgeries sent before it have been read.
            _ = try await d.handlers(forger)
            goContinuation.yield()
            let (accepted, result) = try await walk.value
            #expect(!accepted)
            #expect(result["outcome"] == Variant("discarded"))
            #expect(d.fallback.urls.isEmpty)
            #expect(d.daemon.forgedReplyCount >= 1)
        }
    }

    @Test func aCallAnsweredOnlyByAForgeryStillTimesOut() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let client = try await bus.connect()
            let forger = try await bus.connect()
            defer { [server, client, forger].forEach { $0.close() } }
            let (asked, askedContinuation) = AsyncStream<Void>.makeStream()
            server.export([ExportedInterface("org.example.Slow", methods: [
                ExportedMethod("Wait", results: [Argument("x", .string)], asyncHandler: { _ in
                    askedContinuation.yield()
                    try? await Task.sleep(for: .seconds(60))
                    return [.string("late")]
                }),
            ])], at: "/slow")
            let call = Task {
                try await client.call(server.uniqueName, "/slow", "org.example.Slow", "Wait", timeout: .seconds(3))
            }
            for await _ in asked { break }
            try forgeReplies(from: forger, to: client.uniqueName, serials: 1...200, strings: ["forged"])
            // libdbus answers Peer.Ping itself, after reading what came before it,
            // so the forgeries have normally been judged when the answer arrives;
            // a loaded run of the whole suite once read the count first, so each
            // round trip is a chance, for at most 5 s.
            let clock = ContinuousClock()
            let end = clock.now + .seconds(5)
            repeat {
                _ = try await forger.call(client.uniqueName, "/", "org.freedesktop.DBus.Peer", "Ping")
            } while client.forgedReplyCount == 0 && clock.now < end
            #expect(client.forgedReplyCount >= 1)
            let timedOut = await #expect(throws: DBusError.self) { try await call.value }
            #expect(timedOut?.name == .noReply)
        }
    }

    /// The daemon's question to the chooser goes to a well-known name: a
    /// third peer's answers (a phishing URL chosen, or "no chooser here") are
    /// dropped, and the chooser that owns the name decides.
    @Test(arguments: ["chosen", "ServiceUnknown"])
    func forgedChooserAnswersAreIgnored(forgery: String) async throws {
        try await withPrivateBus { bus in
            let chooser = try await bus.connect()
            let daemon = try await bus.connect()
            let forger = try await bus.connect()
            defer { [chooser, daemon, forger].forEach { $0.close() } }
            let (asked, askedContinuation) = AsyncStream<Void>.makeStream()
            let (go, goContinuation) = AsyncStream<Void>.makeStream()
            let gate = Mutex<AsyncStream<Void>?>(go)
            chooser.export([ExportedInterface(DispatcherAPI.chooserInterface, methods: [
                ExportedMethod(
                    DispatcherAPI.chooseMember,
                    arguments: DispatcherAPI.Signatures.choose.arguments, results: DispatcherAPI.Signatures.choose.results,
                    asyncHandler: { _ in
                        askedContinuation.yield()
                        if let go = gate.withLock({ $0 }) { for await _ in go { break } }
                        return DispatcherAPI.ChooserReply.cancelled.arguments
                    }),
            ])], at: DispatcherAPI.chooserObjectPath)
            #expect(try await chooser.requestName(DispatcherAPI.chooserBusName) == .primaryOwner)
            let browser = ChooserCandidate(target: .application("browser.desktop"), name: "Browser", icon: "")
            let request = ChoiceRequest(url: try ValidatedURL("https://bank.example/login"), candidates: [browser])
            let choice = Task { await BusChooser(connection: daemon).choose(request, timeout: .seconds(20)) }
            for await _ in asked { break }
            let template = switch forgery {
            case "chosen":
                try Message.reply(
                    to: try forgedCall(to: daemon.uniqueName),
                    arguments: DispatcherAPI.ChooserReply.chosen(
                        .application("browser.desktop"), url: "https://phish.example/login", activationToken: nil, remember: .host
                    ).arguments)
            default:
                try Message.errorReply(to: try forgedCall(to: daemon.uniqueName), DBusError(.serviceUnknown, "no chooser here"))
            }
            try forgeReplies(from: forger, to: daemon.uniqueName, serials: 1...3000, like: template)
            _ = try await forger.owner(of: daemon.uniqueName)
            _ = try await daemon.owner(of: forger.uniqueName)
            goContinuation.yield()
            #expect(await choice.value == .cancelled)
            #expect(daemon.forgedReplyCount >= 1)
        }
    }

    /// The launcher's `org.freedesktop.Application.Open` goes to an app's
    /// well-known name: a third peer's forged error (which would report the
    /// launch as failed, and the link as lost) is dropped; the app's answer counts.
    @Test func forgedAnswersToApplicationOpenAreIgnored() async throws {
        let tree = try XDGTree()
        try tree.app("org.example.App.desktop", schemes: ["https"], extra: "DBusActivatable=true")
        try await withPrivateBus { bus in
            let app = try await bus.connect()
            let daemon = try await bus.connect()
            let forger = try await bus.connect()
            defer { [app, daemon, forger].forEach { $0.close() } }
            let (asked, askedContinuation) = AsyncStream<Void>.makeStream()
            let (go, goContinuation) = AsyncStream<Void>.makeStream()
            let gate = Mutex<AsyncStream<Void>?>(go)
            app.export([ExportedInterface("org.freedesktop.Application", methods: [
                ExportedMethod(
                    "Open",
                    arguments: [Argument("uris", .array(.string)), Argument("platform-data", .dictionary(key: .string, value: .variant))],
                    asyncHandler: { _ in
                        askedContinuation.yield()
                        if let go = gate.withLock({ $0 }) { for await _ in go { break } }
                        return []
                    }),
            ])], at: "/org/example/App")
            #expect(try await app.requestName("org.example.App") == .primaryOwner)
            let fallback = DesktopURLOpener(environment: tree.environment, connection: daemon, reaper: ChildReaper())
            let url = try ValidatedURL("https://example.com/")
            let launch = Task { await fallback.open(url, activationToken: nil) }
            for await _ in asked { break }
            let template = try Message.errorReply(to: try forgedCall(to: daemon.uniqueName), DBusError(.failed, "forged: not opened"))
            try forgeReplies(from: forger, to: daemon.uniqueName, serials: 1...500, like: template)
            _ = try await forger.owner(of: daemon.uniqueName)
            _ = try await daemon.owner(of: forger.uniqueName)
            goContinuation.yield()
            #expect(await launch.value == .opened(application: "org.example.App.desktop"))
            #expect(daemon.forgedReplyCount >= 1)
        }
    }
}
