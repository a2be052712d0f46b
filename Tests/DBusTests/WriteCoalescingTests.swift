@testable import DBus
import Dispatch
import Glibc
import Synchronization
import Testing
import TestSupport

/// What a turn of the loop sends is written together while more of the
/// turn's work waits, and at once when none does (`EventLoop.send`): calls
/// read together cost one write of their answers, and a call that comes
/// alone is answered before the work that follows its reply.
@Suite(.timeLimit(.minutes(1)))
struct WriteCoalescingTests {
    static let path: ObjectPath = "/org/example/Echo"
    static let interface: InterfaceName = "org.example.Echo"

    /// `Echo(s) -> s`, answered from a task on the server's loop, with
    /// `afterReply` run once the reply is handed on.
    static func echo(afterReply: @escaping @Sendable () -> Void = {}) -> ExportedInterface {
        ExportedInterface(interface, methods: [
            ExportedMethod("Echo", arguments: [Argument("text", .string)], results: [Argument("text", .string)], asyncAnswer: { call in
                MethodAnswer(call.arguments, afterReply: afterReply)
            }),
        ])
    }

    @Test func callsReadTogetherAreAnsweredInOneWriteInOrder() async throws {
        try await withPrivateBus { bus in
            // The server's poll waits while `held`, so that the calls pile up
            // in its socket and one read takes them all.
            let held = Mutex(false)
            let release = DispatchSemaphore(value: 0)
            let server = try await Connection.connect(to: bus.address, timeout: .seconds(10), poll: { fds, count, timeout in
                if held.withLock({ $0 }) { _ = release.wait(timeout: .now() + 20) }
                return Glibc.poll(fds, count, timeout)
            })
            defer { server.close() }
            server.answerCallsOnLoop()
            server.export([Self.echo()], at: Self.path)
            let callers = 4
            var connected: [Connection] = []
            for _ in 0..<callers { connected.append(try await bus.connect()) }
            let clients = connected
            defer { for client in clients { client.close() } }

            held.withLock { $0 = true }
            // This call ends the poll in progress; the next one waits.
            let first = try await clients[0].call(server.uniqueName, Self.path, Self.interface, "Echo", [.string("first")]).decode(String.self)
            #expect(first == "first")
            let writesBefore = server.loop.sync { server.loop.writes }
            let answers = Task {
                try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for (index, client) in clients.enumerated() {
                        group.addTask {
                            (index, try await client.call(server.uniqueName, Self.path, Self.interface, "Echo", [.string("call \(index)")]).decode(String.self))
                        }
                    }
                    return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
            }
            let descriptor = try #require(server.loop.sync { server.loop.socket?.descriptor.rawValue })
            let piled = await Self.waitForMessages(callers, on: descriptor, within: .seconds(20))
            held.withLock { $0 = false }
            release.signal()
            let echoed = try await answers.value
            #expect(piled, "the \(callers) calls reached the server's socket while its poll waited")
            #expect(echoed == Dictionary(uniqueKeysWithValues: (0..<callers).map { ($0, "call \($0)") }))
            let writes = server.loop.sync { server.loop.writes } - writesBefore
            #expect(writes == 1, "\(callers) answers read in one turn took \(writes) writes")
        }
    }

    @Test func aCallThatComesAloneIsAnsweredBeforeItsAfterReplyWork() async throws {
        try await withPrivateBus { bus in
            // The work after the reply waits for the caller to have the
            // reply: kept back to the end of the turn, the reply would come
            // only after that wait gave up.
            let callerHasIt = DispatchSemaphore(value: 0)
            let sawTheAnswerFirst = Mutex<[Bool]>([])
            let server = try await bus.connect()
            defer { server.close() }
            server.answerCallsOnLoop()
            server.export([Self.echo(afterReply: {
                let inTime = callerHasIt.wait(timeout: .now() + 10) == .success
                sawTheAnswerFirst.withLock { $0.append(inTime) }
            })], at: Self.path)
            let client = try await bus.connect()
            defer { client.close() }
            for round in 0..<3 {
                let echoed = try await client.call(server.uniqueName, Self.path, Self.interface, "Echo", [.string("alone \(round)")]).decode(String.self)
                callerHasIt.signal()
                #expect(echoed == "alone \(round)")
            }
            _ = try await client.call(server.uniqueName, "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping")
            #expect(sawTheAnswerFirst.withLock { $0 } == [true, true, true])
        }
    }

    /// Whether `count` whole messages wait unread on `descriptor` within
    /// `limit`, read with `MSG_PEEK` so that the loop still reads them all.
    static func waitForMessages(_ count: Int, on descriptor: Int32, within limit: Duration) async -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let piled = try? await eventually(within: limit) {
            let waiting = buffer.withUnsafeMutableBytes { buffer in
                let peeked = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT))
                return peeked > 0 ? wholeMessages(in: UnsafeRawBufferPointer(rebasing: buffer[..<peeked])) : 0
            }
            return waiting >= count
        }
        return piled ?? false
    }

    static func wholeMessages(in bytes: UnsafeRawBufferPointer) -> Int {
        var (offset, messages) = (0, 0)
        while bytes.count - offset >= 16,
              let length = try? WireFormat.messageLength(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 16])),
              bytes.count - offset >= length {
            offset += length
            messages += 1
        }
        return messages
    }
}
