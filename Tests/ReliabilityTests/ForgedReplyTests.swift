import DBus
import DispatcherAPI
import Synchronization
import Testing
import TestSupport

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
                try await client.call(server.uniqueName, "/slow", "org.example.Slow", "Wait", timeout: .milliseconds(800))
            }
            for await _ in asked { break }
            try forgeReplies(from: forger, to: client.uniqueName, serials: 1...200, strings: ["forged"])
            await #expect(throws: DBusError.self) { try await call.value }
            #expect(client.forgedReplyCount >= 1)
        }
    }
}
