import DBus
import Desktop
import Foundation
import OpenURLDaemon
import Router
import Rules
import Routing
import Synchronization
import TestSupport
import Testing
import XDG

/// `org.freedesktop.Application.Open` (GIO's call, with its 25 s timeout)
/// for a URL an `Ask=` rule covers: answered as soon as the person is being
/// asked, while the walk waits for them and then opens what they chose.
@Suite(.serialized) struct ApplicationOpenAskTests {
    /// A person who answers when the test says so.
    final class Person: Chooser {
        let asked = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let answer = Mutex<CheckedContinuation<Choice, Never>?>(nil)
        func choose(_ request: ChoiceRequest, timeout: Duration) async -> Choice {
            await withCheckedContinuation { continuation in
                answer.withLock { $0 = continuation }
                asked.withLock { $0.take() }?.resume()
            }
        }
    }

    @Test func openIsAnsweredWhileThePersonDecides() async throws {
        try await withPrivateBus { bus in
            let fallback = LibraryTests.Fallback()
            let person = Person()
            let tree = try XDGTree()
            try tree.write("config/openurld/rules.d/ask.rules", "[Rule ask]\nAsk=\n")
            let rules = RuleFiles.load(files: [tree.root + "/config/openurld/rules.d/ask.rules"])
            let daemon = try await bus.connect()
            defer { daemon.close() }
            async let wasAsked: Void = withCheckedContinuation { continuation in person.asked.withLock { $0 = continuation } }
            _ = try await Daemon.serve(on: daemon, configuration: .init(), opener: fallback, logger: .silent,
                                       asking: Dispatcher.Asking(chooser: person), rules: rules)
            let client = try await bus.connect()
            defer { client.close() }
            // Shorter than any person takes: the reply must not wait for the choice.
            _ = try await client.call("org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.freedesktop.Application", "Open",
                                      [["https://example.com/asked"].dbusValue, [String: Variant]().dbusValue], timeout: .seconds(5))
            await wasAsked
            #expect(fallback.opened.withLock { $0 }.isEmpty, "nothing opens before the person answers")
            person.answer.withLock { $0.take() }?.resume(returning: .target(
                .profile("recorder.desktop", profile: "work"), url: try ValidatedURL("https://example.com/asked"), activationToken: nil, remember: .none))
            for _ in 0..<500 where fallback.opened.withLock({ $0 }).isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            #expect(fallback.opened.withLock { $0 } == ["recorder.desktop@work https://example.com/asked"])
        }
    }

    /// What a walk fails at after `Open` was answered, no caller hears of:
    /// it becomes a notice; one GIO heard of (answered with the error) does not.
    @Test func aFailureAfterTheAnswerIsShownAsANotice() async throws {
        final class Notices: FailureNotices {
            let shown = Mutex<[FailureNotice]>([])
            func show(_ notice: FailureNotice) { shown.withLock { $0.append(notice) } }
        }
        try await withPrivateBus { bus in
            let person = Person()
            let notices = Notices()
            let tree = try XDGTree()
            try tree.write("config/openurld/rules.d/ask.rules", "[Rule ask]\nHosts=asked.example\nAsk=\n")
            let rules = RuleFiles.load(files: [tree.root + "/config/openurld/rules.d/ask.rules"])
            let daemon = try await bus.connect()
            defer { daemon.close() }
            async let wasAsked: Void = withCheckedContinuation { continuation in person.asked.withLock { $0 = continuation } }
            _ = try await Daemon.serve(on: daemon, configuration: .init(), opener: LibraryTests.Fallback(), logger: .silent,
                                       asking: Dispatcher.Asking(chooser: person), notices: notices, rules: rules)
            let client = try await bus.connect()
            defer { client.close() }
            // Not asked: the walk fails before the answer, and GIO gets the error.
            await #expect(throws: DBusError.self) {
                _ = try await client.call("org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.freedesktop.Application", "Open",
                                          [["zoommtg://other.example/j/1"].dbusValue, [String: Variant]().dbusValue], timeout: .seconds(5))
            }
            #expect(notices.shown.withLock { $0 }.isEmpty)
            _ = try await client.call("org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.freedesktop.Application", "Open",
                                      [["https://asked.example/"].dbusValue, [String: Variant]().dbusValue], timeout: .seconds(5))
            await wasAsked
            person.answer.withLock { $0.take() }?.resume(returning: .lost("the chooser left without answering"))
            for _ in 0..<500 where notices.shown.withLock({ $0 }).isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            let shown = notices.shown.withLock { $0 }
            #expect(shown.count == 1 && shown.first?.link == "https://asked.example" && shown.first?.kind == .notOpened, "\(shown)")
            #expect(shown.first?.reason.contains("the chooser left without answering") == true, "\(shown)")
        }
    }
}
