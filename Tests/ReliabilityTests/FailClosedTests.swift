import DBus
import DispatcherAPI
@testable import OpenURLDaemon
import Synchronization
import Testing
import TestSupport

/// When the daemon cannot learn what a handler decided, it opens nothing
/// (issue 15, item 3).
@Suite(.timeLimit(.minutes(1)))
struct FailClosedTests {
    /// Registers, on `connection`, a handler for https that takes a minute to
    /// answer; the stream yields each time it is asked.
    static func registerNeverAnswering(on connection: Connection, in d: DaemonHarness) async throws -> AsyncStream<Void> {
        let (asked, askedContinuation) = AsyncStream<Void>.makeStream()
        try await d.register(connection, spec(["https"], name: "blocker")) { _, _ in
            askedContinuation.yield()
            try? await Task.sleep(for: .seconds(60))
            return answer("discarded")
        }
        return asked
    }

    @Test func aLostBusOpensNoneOfTheURLsWaitingOnHandlers() async throws {
        try await DaemonHarness.with { d in
            let (handler, caller) = (try await d.bus.connect(), try await d.bus.connect())
            defer { [handler, caller].forEach { $0.close() } }
            let asked = try await Self.registerNeverAnswering(on: handler, in: d)
            let walks = (0..<5).map { index in Task { try? await d.open(caller, "https://blocked.example/\(index)") } }
            for await _ in asked { break }
            d.daemon.close()
            await d.dispatcher.drain()
            for walk in walks { _ = await walk.value }
            #expect(d.fallback.urls.isEmpty, "\(d.fallback.urls)")
        }
    }

    /// The shutdown limit can fire: draining gives up at its deadline, and
    /// cancelling the calls in flight then ends their walks undecided.
    @Test func shutdownDrainsUntilItsLimitThenCancelsTheWalks() async throws {
        try await DaemonHarness.with { d in
            let (handler, caller) = (try await d.bus.connect(), try await d.bus.connect())
            defer { [handler, caller].forEach { $0.close() } }
            let asked = try await Self.registerNeverAnswering(on: handler, in: d)
            let walk = Task { try await d.openWithOptions(caller, "https://stuck.example/") }
            for await _ in asked { break }
            let started = ContinuousClock.now
            #expect(await d.dispatcher.drain(before: .now + .milliseconds(200)) == false)
            #expect(ContinuousClock.now - started < .seconds(5))
            d.daemon.cancelCallsInFlight()
            #expect(await d.dispatcher.drain(before: .now + .seconds(5)))
            #expect(await d.daemon.answerCallsInFlight(before: .now + .seconds(5)))
            let (accepted, outcome) = try await walk.value
            #expect(!accepted)
            #expect(outcome["outcome"]?.get(String.self) == "undecided", "\(outcome)")
            #expect(d.fallback.urls.isEmpty)
        }
    }

    @Test(arguments: [
        DBusError(.limitsExceeded, "The maximum number of pending replies per connection has been reached"),
        DBusError.disconnected("the connection was closed"),
    ])
    func theDaemonsOwnTroubleLeavesTheWalkUndecided(_ error: DBusError) {
        guard case .undecided = Dispatcher.answer(from: error) else {
            Issue.record("\(error) was taken as the handler's failure")
            return
        }
    }

    @Test func aCallCancelledAtShutdownLeavesTheWalkUndecided() {
        guard case .undecided = Dispatcher.answer(from: .noReply("the call was cancelled"), whileCancelled: true) else {
            Issue.record("a cancelled call was taken as the handler's failure")
            return
        }
        // The same words from a handler, without cancellation, are its own failure.
        guard case .failed = Dispatcher.answer(from: .noReply("the call was cancelled")) else {
            Issue.record("a handler's error text decided the walk")
            return
        }
    }

    @Test(arguments: [DBusError.noReply("Message recipient disconnected"), DBusError(.unknownMethod, "no HandleURL"), DBusError.failed("boom")])
    func aHandlersOwnFailureCostsOnlyItsTurn(_ error: DBusError) {
        guard case .failed = Dispatcher.answer(from: error) else {
            Issue.record("\(error) stopped the walk")
            return
        }
    }

    @Test func oneCallerCannotHoldMoreThanItsShareOfWalks() async throws {
        try await DaemonHarness.with { d in
            let silent = try await d.bus.connect()
            let blocker = try await d.bus.connect()
            let flooder = try await d.bus.connect()
            let other = try await d.bus.connect()
            defer { [silent, blocker, flooder, other].forEach { $0.close() } }
            let asked = Mutex(0)
            let (askedStream, askedContinuation) = AsyncStream<Void>.makeStream()
            try await d.register(silent, spec(["https"], hosts: ["slow.example"], name: "silent")) { _, _ in
                asked.withLock { $0 += 1 }
                askedContinuation.yield()
                try? await Task.sleep(for: .seconds(60))
                return answer("systemAction")
            }
            try await d.register(blocker, spec(["https"], hosts: ["ads.example"], name: "blocker")) { _, _ in answer("discarded") }
            let share = Connection.maximumCallsRunningPerSender
            let held = (0..<share + 8).map { index in Task { try? await d.open(flooder, "https://slow.example/\(index)") } }
            var seen = 0
            for await _ in askedStream {
                seen += 1
                if seen == share { break }
            }
            // Another caller is served, and its discarding handler decides,
            // while the flooder holds its whole share and has more waiting.
            #expect(try await d.openWithOptions(other, "https://ads.example/x").1["outcome"] == Variant("discarded"))
            #expect(asked.withLock { $0 } == share, "the flooder's calls beyond its share wait")
            silent.close()
            for walk in held { _ = await walk.value }
            #expect(asked.withLock { $0 } == share)
            #expect(d.fallback.urls.count == share + 8, "every waiting call was served in the end")
        }
    }

    /// Calls the daemon gave up on still count at the bus until answered:
    /// three callers parking 270 walks on a handler that never answers once
    /// exhausted the daemon's pending-reply quota (128 here), and another
    /// caller's guard was then skipped. A handler connection now has at most
    /// `maximumCallsPerHandlerConnection` calls counted against it.
    ///
    /// The handler timeout is what makes the daemon give up on the silent
    /// calls; it also bounds the guard's own answer, so it is 1 s, not less:
    /// at 200 ms a loaded run of the whole suite once answered the guard
    /// late, and the guard was skipped as a slow handler ("opened"), which
    /// says nothing about the quota (an exhausted quota gives "undecided").
    @Test func aSilentHandlerCannotExhaustTheDaemonsReplyQuota() async throws {
        try await DaemonHarness.with(handlerTimeout: .seconds(1), repliesPerConnection: 128) { d in
            let silent = try await d.bus.connect()
            let guardian = try await d.bus.connect()
            let other = try await d.bus.connect()
            let flooders = [try await d.bus.connect(), try await d.bus.connect(), try await d.bus.connect()]
            defer { ([silent, guardian, other] + flooders).forEach { $0.close() } }
            try await d.register(silent, spec(["https"], hosts: ["slow.example"], name: "silent")) { _, _ in
                try? await Task.sleep(for: .seconds(3600))
                return answer("systemAction")
            }
            try await d.register(guardian, spec(["https"], hosts: ["ads.example"], name: "guard")) { _, _ in answer("discarded") }
            await withTaskGroup(of: Void.self) { group in
                for (number, flooder) in flooders.enumerated() {
                    for index in 0..<90 { group.addTask { _ = try? await d.open(flooder, "https://slow.example/\(number)/\(index)") } }
                }
            }
            #expect(d.daemon.callsAwaitingAnswer(from: silent.uniqueName) <= Dispatcher.maximumCallsPerHandlerConnection)
            let (accepted, result) = try await d.openWithOptions(other, "https://ads.example/x")
            #expect(!accepted)
            #expect(result["outcome"] == Variant("discarded"), "the guard still decides: \(result)")
        }
    }
}
