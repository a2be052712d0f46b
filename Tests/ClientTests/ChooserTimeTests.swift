import DBus
import Desktop
import DispatcherAPI
import Router
import Routing
import Testing
import TestSupport

/// "Nobody answered in time" is one answer: a chooser that closed its window
/// and said so (response 3), and a chooser whose answer never came, both
/// reach the walk as `.unanswered`; and a chooser knows the daemon's own
/// deadline, not only how long it was told to wait.
@Suite struct ChooserTimeTests {
    /// A chooser on `bus` answering every `Choose` with `reply`, or never when `nil`.
    func withChooser(answering reply: DispatcherAPI.ChooserReply?, _ body: (PrivateBus, Connection) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let chooser = try await bus.connect()
            let daemon = try await bus.connect()
            defer { [chooser, daemon].forEach { $0.close() } }
            chooser.export([ExportedInterface(DispatcherAPI.chooserInterface, methods: [
                ExportedMethod(
                    DispatcherAPI.chooseMember,
                    arguments: DispatcherAPI.Signatures.choose.arguments, results: DispatcherAPI.Signatures.choose.results,
                    asyncHandler: { _ in
                        guard let reply else {
                            try? await Task.sleep(for: .seconds(30))
                            return DispatcherAPI.ChooserReply.cancelled.arguments
                        }
                        return reply.arguments
                    }),
            ])], at: DispatcherAPI.chooserObjectPath)
            #expect(try await chooser.requestName(DispatcherAPI.chooserBusName) == .primaryOwner)
            try await body(bus, daemon)
        }
    }

    static let request = ChoiceRequest(
        url: try! ValidatedURL("https://x.example/"), candidates: [ChooserCandidate(target: .application("a.desktop"), name: "A", icon: "")])

    @Test(arguments: [DispatcherAPI.ChooserReply.unanswered, nil])
    func aWindowThatClosedAndAnAnswerThatNeverCameAreTheSame(reply: DispatcherAPI.ChooserReply?) async throws {
        try await withChooser(answering: reply) { _, daemon in
            let choice = await BusChooser(connection: daemon).choose(Self.request, timeout: .seconds(1))
            #expect(choice == .unanswered(after: .seconds(1)))
        }
        #expect(Choice.unansweredMessage(after: .seconds(300)) == "nobody answered the chooser within 300 s")
    }

    /// A chooser that leaves mid-question (it crashed) is not "nobody
    /// answered in time": the answer is lost, with what went wrong, at once.
    @Test func aChooserThatLeavesIsNotATimeout() async throws {
        try await withPrivateBus { bus in
            let chooser = try await bus.connect()
            let daemon = try await bus.connect()
            defer { [chooser, daemon].forEach { $0.close() } }
            let (asked, askedContinuation) = AsyncStream<Void>.makeStream()
            chooser.export([ExportedInterface(DispatcherAPI.chooserInterface, methods: [
                ExportedMethod(DispatcherAPI.chooseMember, arguments: DispatcherAPI.Signatures.choose.arguments, results: DispatcherAPI.Signatures.choose.results,
                               asyncHandler: { _ in
                                   askedContinuation.yield()
                                   try? await Task.sleep(for: .seconds(60))
                                   return DispatcherAPI.ChooserReply.cancelled.arguments
                               }),
            ])], at: DispatcherAPI.chooserObjectPath)
            #expect(try await chooser.requestName(DispatcherAPI.chooserBusName) == .primaryOwner)
            let choice = Task { await BusChooser(connection: daemon).choose(Self.request, timeout: .seconds(30)) }
            for await _ in asked { break }
            chooser.close()
            let answer = await choice.value
            guard case .lost(let reason) = answer else {
                Issue.record("a chooser that left was taken as \(answer)")
                return
            }
            #expect(!reason.isEmpty)
        }
    }

    @Test func theChooserClosesJustBeforeTheDaemonsDeadline() throws {
        var request = DispatcherAPI.ChooserRequest(Self.request, timeout: .seconds(10))
        let sent = try #require(request.deadline)
        // Read 2 s after sending (a cold start): 8 s are left, less the margin.
        #expect(request.answerTime(now: sent - 10_000_000 + 2_000_000) == .seconds(8) - DispatcherAPI.answerMargin)
        // The deadline passed: answer now.
        #expect(request.answerTime(now: sent + 1) == .zero)
        // A deadline further than the timeout (another clock) is not believed.
        request.deadline = sent + 3_600_000_000
        #expect(request.answerTime(now: sent - 10_000_000) == .seconds(10) - DispatcherAPI.answerMargin)
        // An older daemon sends no deadline: the timeout, from now.
        request.deadline = nil
        #expect(request.answerTime(now: 0) == .seconds(10) - DispatcherAPI.answerMargin)
        // The deadline crosses the bus.
        let read = try DispatcherAPI.ChooserRequest(arguments: DispatcherAPI.ChooserRequest(Self.request, timeout: .seconds(10)).arguments)
        #expect(read.deadline != nil && read.timeout == .seconds(10))
    }
}
