import DBus
import Foundation
import Synchronization
import Testing
import TestSupport

/// A Swift peer exporting a test object, called by another Swift peer, both
/// through a private dbus-daemon.
@Suite(.timeLimit(.minutes(1)))
struct BusTests {
    static let path: ObjectPath = "/org/example/Test"
    static let interface: InterfaceName = "org.example.Test"

    /// The object every test exports.
    static func testInterface() -> ExportedInterface {
        ExportedInterface(
            interface,
            methods: [
                ExportedMethod("Echo", arguments: [Argument("value", .variant)], results: [Argument("value", .variant)]) {
                    $0.arguments
                },
                ExportedMethod(
                    "Mixed",
                    arguments: [Argument("options", .dictionary(key: .string, value: .variant)),
                                Argument("items", .array(.structure([.uint32, .uint32, .string, .string])))],
                    results: [Argument("options", .dictionary(key: .string, value: .variant)),
                              Argument("items", .array(.structure([.uint32, .uint32, .string, .string])))]
                ) { $0.arguments },
                ExportedMethod("Add", arguments: [Argument("a", .int32), Argument("b", .int32)], results: [Argument("sum", .int32)]) { call throws(DBusError) in
                    let (a, b) = try call.arguments.decode(Int32.self, Int32.self)
                    return [.int32(a &+ b)]
                },
                ExportedMethod("Name", results: [Argument("name", .string)]) { _ in [.string("not a number")] },
                ExportedMethod("Never", asyncHandler: { _ in
                    try? await Task.sleep(for: .seconds(3600))
                    return []
                }),
                ExportedMethod("Fail") { _ throws(DBusError) in
                    throw DBusError(ErrorName(trusted: "org.example.Error.Nope"), "no, because of reasons")
                },
                ExportedMethod("Broken", results: [Argument("x", .uint32)]) { _ in [.string("wrong type")] },
            ],
            properties: [ExportedProperty("Version", type: .string, isConstant: true) { .string("1.2.3") }],
            signals: [ExportedSignal("Changed")])
    }

    /// Runs `body` with a server connection exporting the test object and a client.
    func withPeers(_ body: (PrivateBus, Connection, Connection) async throws -> Void) async throws {
        try await withConnectedPeers { bus, server, client in
            server.export([Self.testInterface()], at: Self.path)
            try await body(bus, server, client)
        }
    }

    static let samples: [Value] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false), .int16(-32768), .uint16(65535),
        .int32(Int32.min), .uint32(UInt32.max), .int64(Int64.min), .uint64(UInt64.max), .double(-0.5),
        .double(.infinity), .string(""), .string("héllo \u{1F600} \u{202E} \u{FFFE}"), .objectPath("/a/b"),
        .signature("a{sv}(ii)"), .variant(.variant(.string("nested"))),
        .array(.string, []), .array(.string, [.string("a"), .string("b")]),
        .array(.array(.int32), [.array(.int32, [.int32(1)]), .array(.int32, [])]),
        .dictionary(key: .string, value: .variant, [
            DictionaryEntry(key: .string("inner"), value: .variant(
                .dictionary(key: .string, value: .variant, [
                    DictionaryEntry(key: .string("deep"), value: .variant(.array(.uint64, [.uint64(7)]))),
                ]))),
            DictionaryEntry(key: .string("n"), value: .variant(.int32(3))),
        ]),
        .dictionary(key: .uint32, value: .string, []),
        .structure([.int32(1), .structure([.string("x"), .boolean(true)])]),
        .array(.structure([.uint32, .string]), [.structure([.uint32(1), .string("one")]), .structure([.uint32(2), .string("two")])]),
    ]

    @Test func everyTypeRoundTripsThroughTheBus() async throws {
        try await withPeers { _, server, client in
            for sample in Self.samples {
                let reply = try await client.call(server.uniqueName, Self.path, Self.interface, "Echo", [.variant(sample)])
                #expect(reply == [.variant(sample)], "round trip of \(sample)")
            }
        }
    }

    @Test func nestedDictionariesAndArraysOfStructsAsArguments() async throws {
        let options: [String: Variant] = [
            "activation-token": Variant("token"), "nested": Variant(["k": Variant(UInt32(5))]),
        ]
        let items: Value = .array(
            .structure([.uint32, .uint32, .string, .string]),
            [.structure([.uint32(0), .uint32(19), .string("web"), .string("https://example.com")])])
        try await withPeers { _, server, client in
            let reply = try await client.call(server.uniqueName, Self.path, Self.interface, "Mixed", [options.dbusValue, items])
            #expect([String: Variant](dbusValue: reply[0]) == options)
            #expect(reply[1] == items)
        }
    }

    @Test func wrongSignaturesAreTypedErrors() async throws {
        try await withPeers { _, server, client in
            // A reply of the wrong type, decoded as what we expected.
            let reply = try await client.call(server.uniqueName, Self.path, Self.interface, "Name")
            let decodeError = #expect(throws: DBusError.self) { try reply.decode(UInt32.self) }
            #expect(decodeError?.name == .invalidArgs)
            #expect(decodeError?.message == "expected arguments of type 'u', got 's'")

            // A call with the wrong argument types is refused by the exporting side.
            let callError = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Add", [.string("1"), .string("2")])
            }
            #expect(callError?.name == .invalidArgs)
            #expect(callError?.message == "Add takes arguments of type 'ii', got 'ss'")

            // A handler that produces the wrong types answers Failed, not a malformed reply.
            let broken = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Broken")
            }
            #expect(broken?.name == .failed)

            // Errors thrown by handlers arrive with their name and message.
            let custom = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Fail")
            }
            #expect(custom == DBusError(ErrorName(trusted: "org.example.Error.Nope"), "no, because of reasons"))
        }
    }

    @Test func unknownObjectsInterfacesAndMethodsGetStandardErrors() async throws {
        try await withPeers { _, server, client in
            let cases: [(ObjectPath, InterfaceName, MemberName, ErrorName)] = [
                ("/nowhere", Self.interface, "Add", .unknownObject),
                (Self.path, "org.example.Other", "Add", .unknownInterface),
                (Self.path, Self.interface, "Subtract", .unknownMethod),
                (Self.path, "org.freedesktop.DBus.Properties", "Frobnicate", .unknownMethod),
            ]
            for (path, interface, member, expected) in cases {
                let error = await #expect(throws: DBusError.self) {
                    try await client.call(server.uniqueName, path, interface, member)
                }
                #expect(error?.name == expected)
            }
        }
    }

    /// Routing compares the header's strings where libdbus holds them and
    /// keeps the object it found last: neither may route a call to an
    /// object that is gone, replaced, or only shares a prefix of its path.
    @Test func callsAreRoutedToTheObjectsAsTheyNowStand() async throws {
        try await withPeers { _, server, client in
            func errorName(_ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ arguments: [Value] = []) async -> ErrorName? {
                do {
                    _ = try await client.call(server.uniqueName, path, interface, member, arguments)
                    return nil
                } catch { return error.name }
            }
            let two: [Value] = [.int32(2), .int32(3)]
            #expect(await errorName(Self.path, Self.interface, "Add", two) == nil)
            // Longer and shorter than the object found last, and differing in its last byte.
            #expect(await errorName("/org/example/Test2", Self.interface, "Add", two) == .unknownObject)
            #expect(await errorName("/org/example/Tes", Self.interface, "Add", two) == .unknownObject)
            #expect(await errorName("/org/example/Tesu", Self.interface, "Add", two) == .unknownObject)
            // Members and interfaces that only share a prefix are other names.
            #expect(await errorName(Self.path, Self.interface, "Ad", two) == .unknownMethod)
            #expect(await errorName(Self.path, Self.interface, "Add2", two) == .unknownMethod)
            #expect(await errorName(Self.path, "org.example.Tes", "Add", two) == .unknownInterface)
            #expect(await errorName(Self.path, Self.interface, "Add", [.int32(2)]) == .invalidArgs)
            // Gone: the same path answers UnknownObject, naming it.
            server.unexport(Self.path)
            let gone = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Add", two)
            }
            #expect(gone == DBusError(.unknownObject, "no object at path /org/example/Test"))
            // Replaced: the new interfaces answer, the old ones no longer do.
            server.export([ExportedInterface(Self.interface, methods: [ExportedMethod("Name", results: [Argument("name", .string)]) { _ in [.string("new")] }])],
                          at: Self.path)
            let renamed = try await client.call(server.uniqueName, Self.path, Self.interface, "Name")
            #expect(renamed == [.string("new")])
            let replaced = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Add", two)
            }
            #expect(replaced == DBusError(.unknownMethod, "no method Add on interface org.example.Test at /org/example/Test"))
            // Another object in between, then the first again.
            server.export([Self.testInterface()], at: "/org/example/Other")
            let other = try await client.call(server.uniqueName, "/org/example/Other", Self.interface, "Add", two)
            #expect(other == [.int32(5)])
            let first = try await client.call(server.uniqueName, Self.path, Self.interface, "Name")
            #expect(first == [.string("new")])
            let wrongInterface = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, "org.example.Other", "Name")
            }
            #expect(wrongInterface == DBusError(.unknownInterface, "object /org/example/Test has no interface org.example.Other"))
        }
    }

    @Test func propertiesAreReadOnly() async throws {
        try await withPeers { _, server, client in
            let props: InterfaceName = "org.freedesktop.DBus.Properties"
            let value = try await client.call(server.uniqueName, Self.path, props, "Get", [.string(Self.interface.rawValue), .string("Version")])
            #expect(value == [.variant(.string("1.2.3"))])
            let all = try await client.call(server.uniqueName, Self.path, props, "GetAll", [.string(Self.interface.rawValue)])
                .decode([String: Variant].self)
            #expect(all == ["Version": Variant("1.2.3")])
            let set = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, props, "Set", [.string(Self.interface.rawValue), .string("Version"), .variant(.string("2"))])
            }
            #expect(set?.name == .propertyReadOnly)
            let missing = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, props, "Get", [.string(Self.interface.rawValue), .string("Nope")])
            }
            #expect(missing?.name == .unknownProperty)
        }
    }

    @Test func aPeerThatNeverAnswersTimesOutAtTheDeadline() async throws {
        try await withPeers { _, server, client in
            let clock = ContinuousClock()
            let start = clock.now
            let error = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Never", timeout: .milliseconds(300))
            }
            let elapsed = clock.now - start
            #expect(error?.name == .noReply)
            #expect(elapsed >= .milliseconds(290))
            #expect(elapsed < .seconds(3))
            // The connection keeps working afterwards.
            let sum = try await client.call(server.uniqueName, Self.path, Self.interface, "Add", [.int32(2), .int32(3)])
            #expect(sum == [.int32(5)])
        }
    }

    /// `send(call:)` sends at once and returns; the reply is kept until it is
    /// awaited, however long after it came, and the deadline counts from the send.
    @Test func aCallSentNowIsAnsweredWhenItsReplyIsAwaitedLater() async throws {
        try await withPeers { _, server, client in
            let add = try Message.methodCall(
                destination: server.uniqueName, path: Self.path, interface: Self.interface, member: "Add", arguments: [.int32(2), .int32(3)])
            let sent = client.send(call: add, timeout: .seconds(5))
            // Long enough for the reply to arrive before anyone waits for it.
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await sent.reply().arguments() == [.int32(5)])

            let never = try Message.methodCall(destination: server.uniqueName, path: Self.path, interface: Self.interface, member: "Never")
            let unanswered = client.send(call: never, timeout: .milliseconds(300))
            try await Task.sleep(for: .milliseconds(500))
            // The deadline passed while nobody waited: the answer is there at
            // once, not 300 ms after reply() is called.
            let clock = ContinuousClock()
            let start = clock.now
            let error = await #expect(throws: DBusError.self) { try await unanswered.reply() }
            #expect(error?.name == .noReply)
            #expect(clock.now - start < .milliseconds(250))
        }
    }

    @Test func workAfterTheReplyRunsOnceTheCallerHasItsAnswer() async throws {
        try await withPeers { _, server, client in
            // The after-reply work holds the server until the client says it
            // has the answer: run before the reply, it would hold the answer
            // back until its wait gave up, 5 s later, and say so. On the
            // loop, as the daemon answers: the wait holds the server's loop
            // thread, not one of the few threads every task shares.
            server.answerCallsOnLoop()
            let answered = DispatchSemaphore(value: 0)
            let waited = Mutex<Bool?>(nil)
            server.export([ExportedInterface(Self.interface, methods: [
                ExportedMethod("Later", results: [Argument("n", .int32)], asyncAnswer: { _ in
                    MethodAnswer([.int32(7)], afterReply: {
                        let told = answered.wait(timeout: .now() + .seconds(5)) == .success
                        waited.withLock { $0 = told }
                    })
                }),
            ])], at: "/later")
            let clock = ContinuousClock()
            let start = clock.now
            #expect(try await client.call(server.uniqueName, "/later", Self.interface, "Later") == [.int32(7)])
            #expect(clock.now - start < .seconds(4))
            // Still running: the call is not answered until its work is done.
            #expect(server.callsInFlight == 1)
            answered.signal()
            while waited.withLock({ $0 }) == nil || server.callsInFlight > 0 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(waited.withLock { $0 } == true)
        }
    }

    /// A staged method answers on the loop queue when it can: at once, even
    /// while a call it handed on from the same sender is still waiting; its
    /// error and its result types are checked as any method's; what it
    /// hands on runs in a task, counted in flight until it answers.
    @Test func aStagedMethodAnswersAtOnceWhenItCanAndInATaskWhenItMust() async throws {
        try await withPeers { _, server, client in
            server.answerCallsOnLoop()
            let released = Mutex(false)
            let afterReply = Mutex(0)
            let decidedInATask = Mutex<Bool?>(nil)
            server.export([ExportedInterface(Self.interface, methods: [
                ExportedMethod.staged("Decide", arguments: [Argument("how", .string)], results: [Argument("answer", .string)]) { call throws(DBusError) in
                    decidedInATask.withLock { $0 = withUnsafeCurrentTask { $0 != nil } }
                    switch try call.arguments.decode(String.self) {
                    case "now": return .now(MethodAnswer([.string("at once")], afterReply: { afterReply.withLock { $0 += 1 } }))
                    case "wrong type": return .now(MethodAnswer([.int32(1)]))
                    case "refuse": throw .invalidArgs("not that")
                    default:
                        return .later {
                            while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
                            return MethodAnswer([.string("later")])
                        }
                    }
                },
            ])], at: "/staged")
            let waiting = Task { try await client.call(server.uniqueName, "/staged", Self.interface, "Decide", [.string("wait")]) }
            while server.callsInFlight == 0 { try await Task.sleep(for: .milliseconds(5)) }
            // Answered on the loop queue, in no task, while the same sender's
            // handed-on call still waits.
            #expect(try await client.call(server.uniqueName, "/staged", Self.interface, "Decide", [.string("now")]) == [.string("at once")])
            #expect(decidedInATask.withLock { $0 } == false)
            // Run on the server's loop once the reply is sent, which may be after the client has it.
            for _ in 0..<1000 where afterReply.withLock({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(afterReply.withLock { $0 } == 1)
            #expect(server.callsInFlight == 1)
            let refused = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, "/staged", Self.interface, "Decide", [.string("refuse")])
            }
            #expect(refused?.name == .invalidArgs)
            #expect(refused?.message == "not that")
            let wrong = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, "/staged", Self.interface, "Decide", [.string("wrong type")])
            }
            #expect(wrong?.name == .failed)
            released.withLock { $0 = true }
            #expect(try await waiting.value == [.string("later")])
            while server.callsInFlight > 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    /// Deferred calls reuse idle worker tasks; one cancelled at shutdown
    /// (`cancelCallsInFlight`) must not hand its cancellation to later calls.
    @Test func aCancelledCallLeavesNoCancellationToLaterCalls() async throws {
        try await withPeers { _, server, client in
            server.answerCallsOnLoop()
            let released = Mutex(false)
            server.export([ExportedInterface(Self.interface, methods: [
                ExportedMethod("Check", results: [Argument("cancelled", .boolean)], asyncHandler: { _ in
                    [.boolean(Task.isCancelled)]
                }),
                ExportedMethod("Block", results: [Argument("cancelled", .boolean)], asyncHandler: { _ in
                    while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
                    return [.boolean(Task.isCancelled)]
                }),
            ])], at: "/workers")
            // A worker that has answered one call, idle for the next.
            #expect(try await client.call(server.uniqueName, "/workers", Self.interface, "Check") == [.boolean(false)])
            let blocked = Task { try await client.call(server.uniqueName, "/workers", Self.interface, "Block") }
            while server.callsInFlight == 0 { try await Task.sleep(for: .milliseconds(5)) }
            server.cancelCallsInFlight()
            released.withLock { $0 = true }
            #expect(try await blocked.value == [.boolean(true)])
            for _ in 0..<5 {
                #expect(try await client.call(server.uniqueName, "/workers", Self.interface, "Check") == [.boolean(false)])
            }
        }
    }

    /// Idle workers live as long as the connection, so a worker waiting for
    /// its next call must hold none of the messages it answered: a peer's
    /// refused 32 MiB call stayed in the daemon's memory with the worker that
    /// started with it. Covered: workers started for a call, a call handed to
    /// an idle worker, `async` and staged methods, and both executors.
    @Test(arguments: [false, true], ["Keep", "KeepLater"])
    func anIdleWorkerHoldsNoMessage(onLoop: Bool, method: String) async throws {
        try await withPeers { _, server, client in
            if onLoop { server.answerCallsOnLoop() }
            let seen = Mutex<[WeakMessage]>([])
            let released = Mutex(false)
            server.export([ExportedInterface(Self.interface, methods: [
                ExportedMethod("Keep", arguments: [Argument("text", .string)], asyncHandler: { call in
                    seen.withLock { $0.append(WeakMessage(message: call.message)) }
                    // Held until all have started, so that each starts a worker of its own.
                    while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
                    return []
                }),
                ExportedMethod.staged("KeepLater", arguments: [Argument("text", .string)]) { call in
                    seen.withLock { $0.append(WeakMessage(message: call.message)) }
                    return .later {
                        while !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
                        return MethodAnswer([])
                    }
                },
            ])], at: "/keep")
            let keep: @Sendable () async throws -> [Value] = {
                try await client.call(server.uniqueName, "/keep", Self.interface, try MemberName(method), [.string("a call's text")])
            }
            let workers = 4  // as many as are kept idle (CallWorker.keptIdle)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<workers { group.addTask { _ = try await keep() } }
                while seen.withLock({ $0.count }) < workers { try await Task.sleep(for: .milliseconds(2)) }
                released.withLock { $0 = true }
                try await group.waitForAll()
            }
            // Handed to a worker that is idle now.
            _ = try await keep()
            #expect(seen.withLock { $0.count } == workers + 1)
            // A worker lets go of its call before it parks, just after the call counts as answered.
            for _ in 0..<1000 where server.callsInFlight > 0 || seen.withLock({ $0.contains { $0.message != nil } }) {
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(seen.withLock { $0.filter { $0.message != nil }.count } == 0)
        }
    }

    struct WeakMessage {
        weak var message: Message?
    }

    @Test func aPeerThatDisconnectsMidCallEndsTheCallPromptly() async throws {
        try await withPeers { _, server, client in
            let clock = ContinuousClock()
            let start = clock.now
            let outcome = Task {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Never", timeout: .seconds(20))
            }
            try await Task.sleep(for: .milliseconds(200))
            server.close()
            let error = await #expect(throws: DBusError.self) { try await outcome.value }
            #expect(error?.name == .noReply)
            // Well before the call's own 20 s timeout (what a missed disconnect would cost),
            // with room for a loaded machine: a full suite on 2 cores once took 5.1 s here.
            #expect(clock.now - start < .seconds(15))
        }
    }

    @Test func closingTheCallersConnectionFailsItsCallsOnce() async throws {
        try await withPeers { _, server, client in
            let outcome = Task {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Never", timeout: .seconds(20))
            }
            try await Task.sleep(for: .milliseconds(200))
            client.close()
            let error = await #expect(throws: DBusError.self) { try await outcome.value }
            #expect(error?.name == .disconnected)
            let after = await #expect(throws: DBusError.self) {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Add", [.int32(1), .int32(1)])
            }
            #expect(after?.name == .disconnected)
        }
    }

    @Test func cancellingTheTaskCancelsTheCall() async throws {
        try await withPeers { _, server, client in
            let task = Task {
                try await client.call(server.uniqueName, Self.path, Self.interface, "Never", timeout: .seconds(20))
            }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            let error = await #expect(throws: DBusError.self) { try await task.value }
            #expect(error?.message.contains("cancelled") == true)
        }
    }

    @Test func manyConcurrentCallsAllComplete() async throws {
        try await withPeers { _, server, client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in Int32(0)..<200 {
                    group.addTask {
                        let sum = try await client.call(server.uniqueName, Self.path, Self.interface, "Add", [.int32(i), .int32(1)])
                        #expect(sum == [.int32(i + 1)])
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func nameOwnerChangedIsSeenWhenAPeerLeaves() async throws {
        try await withPrivateBus { bus in
            let watcher = try await bus.connect()
            defer { watcher.close() }
            let leaving = try await bus.connect()
            let name = leaving.uniqueName
            let (changes, continuation) = AsyncStream.makeStream(of: NameOwnerChange.self)
            let subscription = try await watcher.watchNameOwners(of: name) { continuation.yield($0) }
            defer { subscription.cancel() }
            leaving.close()
            let change = await changes.first { _ in true }
            #expect(change == NameOwnerChange(name: name, oldOwner: name, newOwner: nil))
        }
    }

    @Test func wellKnownNamesAreRequestedAndReportedWhenTaken() async throws {
        try await withPrivateBus { bus in
            let first = try await bus.connect()
            let second = try await bus.connect()
            defer {
                first.close()
                second.close()
            }
            let name: BusName = "org.example.Owned"
            #expect(try await first.requestName(name, allowReplacement: true) == .primaryOwner)
            #expect(try await second.requestName(name) == .exists)
            #expect(try await second.owner(of: name) == first.uniqueName)
            #expect(try await second.requestName(name, replaceExisting: true) == .primaryOwner)
            #expect(try await first.owner(of: name) == second.uniqueName)
            #expect(try await first.owner(of: "org.example.Nobody") == nil)
        }
    }

    @Test func signalsReachSubscribers() async throws {
        try await withPeers { _, server, client in
            let (signals, continuation) = AsyncStream.makeStream(of: ReceivedSignal.self)
            let subscription = try await client.subscribe(
                to: MatchRule(sender: server.uniqueName, interface: Self.interface, member: "Changed")
            ) { continuation.yield($0) }
            defer { subscription.cancel() }
            try server.emit("Changed", on: Self.interface, from: Self.path, arguments: [.string("it's")])
            let signal = await signals.first { _ in true }
            #expect(signal?.arguments == [.string("it's")])
            #expect(signal?.message.sender == server.uniqueName)
        }
    }

    @Test func invalidValuesAreRefusedBeforeLibdbus() throws {
        let withNul = "a\u{0}b"
        let error = #expect(throws: DBusError.self) {
            try Message.methodCall(destination: nil, path: "/", interface: nil, member: "X", arguments: [.string(withNul)])
        }
        #expect(error?.name == .invalidArgs)
        #expect(throws: DBusError.self) {
            try Message.methodCall(destination: nil, path: "/", interface: nil, member: "X",
                                   arguments: [.array(.int32, [.string("not an int")])])
        }
        #expect(throws: DBusError.self) {
            try Message.methodCall(destination: nil, path: "/", interface: nil, member: "X",
                                   arguments: [.dictionary(key: .variant, value: .string, [])])
        }
        var deep: Value = .int32(0)
        for _ in 0..<70 { deep = .variant(deep) }
        #expect(throws: DBusError.self) {
            try Message.methodCall(destination: nil, path: "/", interface: nil, member: "X", arguments: [deep])
        }
    }

    @Test func badAddressesAreErrors() async {
        let address = "unix:path=/nonexistent/socket"
        let error = await #expect(throws: DBusError.self) { try await Connection.connect(to: address) }
        #expect(error?.message.isEmpty == false)
        let garbage = "this is not an address"
        await #expect(throws: DBusError.self) { try await Connection.connect(to: garbage) }
    }
}

extension BusTests {
    @Test func largeMessagesCrossInBothDirections() async throws {
        try await withPeers { _, server, client in
            let big = String(repeating: "x", count: 4 * 1024 * 1024)
            for _ in 0..<3 {
                let reply = try await client.call(server.uniqueName, Self.path, Self.interface, "Echo", [.variant(.string(big))], timeout: .seconds(10))
                #expect(reply == [.variant(.string(big))])
            }
        }
    }
}

extension BusTests {
    /// Regression: with fd watches on Dispatch sources, a connection opened
    /// while others closed could be given a recycled fd whose stale source
    /// registration swallowed its events; its `Hello` never completed.
    @Test func connectionsOpeningWhileOthersCloseNeverStall() async throws {
        try await withPrivateBus { bus in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<25 {
                            let connection = try await Connection.connect(to: bus.address, timeout: .seconds(5))
                            _ = try await connection.owner(of: .bus)
                            connection.close()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

extension BusTests {
    /// Closing from inside a handler (on the loop, inside libdbus's dispatch)
    /// is deferred until the handler returns, not done under libdbus's feet;
    /// the handler's reply is written out before the connection closes.
    @Test func aHandlerMayCloseItsOwnConnection() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let client = try await bus.connect()
            defer { client.close() }
            server.export([ExportedInterface("org.example.Closer", methods: [
                ExportedMethod("Close") { [server] _ in
                    server.close()
                    return []
                },
            ])], at: "/closer")
            #expect(try await client.call(server.uniqueName, "/closer", "org.example.Closer", "Close", timeout: .seconds(5)) == [])
            let reason = await server.disconnected()
            #expect(reason.message == "the connection was closed")
        }
    }
}

/// One sender's calls to `async` methods: a bounded number run, the rest wait
/// in order, and past the queue they are refused; other senders are not held up.
@Suite(.timeLimit(.minutes(1)))
struct CallQueueTests {
    @Test func aFloodingSenderWaitsItsTurnAndOthersAreServed() async throws {
        try await withPrivateBus { bus in
            let server = try await bus.connect()
            let flooder = try await bus.connect()
            let other = try await bus.connect()
            defer { [server, flooder, other].forEach { $0.close() } }
            let running = Mutex(0)
            let gate = Gate()
            let (started, startedContinuation) = AsyncStream<Void>.makeStream()
            server.export([ExportedInterface("org.example.Slow", methods: [
                ExportedMethod("Wait", arguments: [Argument("who", .string)], results: [Argument("x", .string)], asyncHandler: { call in
                    let who = (try? call.arguments.decode(String.self)) ?? ""
                    if who == "flooder" {
                        running.withLock { $0 += 1 }
                        startedContinuation.yield()
                        await gate.wait()
                    }
                    return [.string(who)]
                }),
            ])], at: "/slow")
            let running0 = Connection.maximumCallsRunningPerSender, waiting = Connection.maximumCallsWaitingPerSender
            let total = running0 + waiting + 5
            let (refusals, refusal) = AsyncStream<ErrorName>.makeStream()
            let calls = (0..<total).map { _ in
                Task {
                    do {
                        _ = try await flooder.call(server.uniqueName, "/slow", "org.example.Slow", "Wait", [.string("flooder")])
                    } catch let error as DBusError {
                        refusal.yield(error.name)
                    } catch {}
                }
            }
            var seen = 0
            for await _ in started {
                seen += 1
                if seen == running0 { break }
            }
            // Past the running and the waiting calls, the rest are refused at once.
            var refused: [ErrorName] = []
            for await name in refusals {
                refused.append(name)
                if refused.count == 5 { break }
            }
            #expect(refused == Array(repeating: .limitsExceeded, count: 5))
            // Another sender's call runs at once, beside the flooder's full share.
            #expect(try await other.call(server.uniqueName, "/slow", "org.example.Slow", "Wait", [.string("other")]) == [.string("other")])
            #expect(running.withLock { $0 } == running0, "the flooder's waiting calls wait")
            gate.open()
            for call in calls { await call.value }
            #expect(running.withLock { $0 } == running0 + waiting, "every waiting call ran")
        }
    }
}

/// Holds any number of tasks until opened.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let go = state.withLock { state in
                if state.isOpen { return true }
                state.waiting.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume() }
    }
}

/// Runs `body` with two connections to a private bus, a server and a
/// client, and closes both afterwards.
func withConnectedPeers(_ body: (PrivateBus, Connection, Connection) async throws -> Void) async throws {
    try await withPrivateBus { bus in
        let server = try await bus.connect()
        let client = try await bus.connect()
        defer {
            client.close()
            server.close()
        }
        try await body(bus, server, client)
    }
}
