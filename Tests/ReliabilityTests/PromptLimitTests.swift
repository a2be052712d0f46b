import DBus
import DispatcherAPI
@testable import OpenURLDaemon
import Router
import Routing
import Synchronization
import Testing
import TestSupport
import XDG

/// Questions on screen are bounded per caller and in all, and a question
/// about a URL already on screen joins it (issue 24, item 4).
@Suite(.timeLimit(.minutes(1)))
struct PromptLimitTests {
    /// A chooser that keeps every question open until released, then cancels.
    final class HoldingChooser: Chooser, Sendable {
        let asked = Mutex<[String]>([])
        let release: AsyncStream<Void>
        let releaseAll: AsyncStream<Void>.Continuation
        let (shownStream, shown) = AsyncStream<Void>.makeStream()

        init() { (release, releaseAll) = AsyncStream<Void>.makeStream() }

        func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice {
            asked.withLock { $0.append(request.url.text) }
            shown.yield()
            for await _ in release { break }
            return .cancelled
        }
    }

    @Test func oneCallerCannotBuryThePersonInQuestions() async throws {
        let chooser = HoldingChooser()
        try await DaemonHarness.with(
            fallback: RecordingOpener(offering: [ChooserCandidate(target: .application("browser.desktop"), name: "Browser", icon: "")]),
            asking: .init(chooser: chooser)) { d in
            let flooder = try await d.bus.connect()
            let second = try await d.bus.connect()
            let guardian = try await d.bus.connect()
            let other = try await d.bus.connect()
            defer { [flooder, second, guardian, other].forEach { $0.close() } }
            try await d.register(guardian, spec(["https"], hosts: ["ads.example"], name: "guard")) { _, _ in answer("discarded") }
            let (finished, finish) = AsyncStream<[String: Variant]>.makeStream()
            let walks = (0..<40).map { index in
                Task {
                    let result = try await d.openWithOptions(flooder, "https://flood.example/\(index)", ["ask": Variant(true)]).1
                    finish.yield(result)
                }
            }
            // The flooder's other questions are refused at once, and nothing opens for them.
            var refused = 0
            for await result in finished {
                #expect(result["outcome"] == Variant("undecided"))
                refused += 1
                if refused == 40 - PromptLimits.perCaller { break }
            }
            #expect(refused == 40 - PromptLimits.perCaller)
            #expect(chooser.asked.withLock { $0.count } == PromptLimits.perCaller)
            // Another caller is asked, and its guard decides.
            #expect(try await d.openWithOptions(other, "https://ads.example/x").1["outcome"] == Variant("discarded"))
            // A second question about a URL on screen joins it: no second window.
            let onScreen = chooser.asked.withLock { $0[0] }
            let joined = Task { try await d.openWithOptions(second, onScreen, ["ask": Variant(true)]).1 }
            _ = try await d.handlers(second)  // a round trip: the joined walk has started
            #expect(chooser.asked.withLock { $0.count } == PromptLimits.perCaller)
            chooser.releaseAll.finish()
            #expect(try await joined.value["outcome"] == Variant("discarded"))
            for walk in walks { _ = try await walk.value }
            #expect(d.fallback.urls.isEmpty)
        }
    }
}
