@testable import DBus
import Glibc
import Synchronization
import Testing
import TestSupport

/// A poll that fails (not with EINTR) fails the connection, with the error,
/// for its pending calls and its disconnect handlers: the library neither
/// aborts the program that uses it nor spins on the failure.
@Suite struct PollFailureTests {
    @Test func aFailingPollFailsTheConnectionNotTheProgram() async throws {
        try await withPrivateBus { bus in
            let failing = Mutex(false)
            let polls = Mutex(0)
            let connection = try await Connection.connect(to: bus.address, timeout: .seconds(10), poll: { fds, count, timeout in
                guard failing.withLock({ $0 }) else { return Glibc.poll(fds, count, timeout) }
                polls.withLock { $0 += 1 }
                errno = EBADF
                return -1
            })
            defer { connection.close() }
            // A peer whose method never answers: a call to it is pending when the poll fails.
            let peer = try await bus.connect()
            defer { peer.close() }
            peer.export([ExportedInterface("org.example.Silent", methods: [
                ExportedMethod("Wait", asyncHandler: { _ in
                    try? await Task.sleep(for: .seconds(60))
                    return []
                }),
            ])], at: "/silent")
            let (closed, closedContinuation) = AsyncStream<DBusError>.makeStream()
            connection.onDisconnect { closedContinuation.yield($0) }
            let pending = Task { () async -> DBusError? in
                do throws(DBusError) {
                    _ = try await connection.call(peer.uniqueName, "/silent", "org.example.Silent", "Wait", timeout: .seconds(30))
                    return nil
                } catch { return error }
            }
            _ = try await connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", timeout: .seconds(10))
            failing.withLock { $0 = true }
            // This call's reply ends the poll in progress; the next poll fails.
            _ = try? await connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", timeout: .seconds(10))
            var reason: DBusError?
            for await closedWith in closed {
                reason = closedWith
                break
            }
            #expect(reason?.name == .disconnected && reason?.message.contains("poll failed: Bad file descriptor") == true, "\(String(describing: reason))")
            let lost = await pending.value
            #expect(lost?.name == .disconnected && lost?.message.contains("poll failed") == true, "the pending call: \(String(describing: lost))")
            #expect(polls.withLock { $0 } == 1, "the poll thread stopped at the first failure, not spinning")
        }
    }
}

/// Run-time data never crashes the library: a unique name passed to
/// `requestName` is an error, as the bus would answer, not a precondition.
@Suite struct RequestNameTests {
    @Test func aUniqueNameCannotBeRequestedAndSaysSo() async throws {
        try await withPrivateBus { bus in
            let connection = try await bus.connect()
            defer { connection.close() }
            let error = await #expect(throws: DBusError.self) { _ = try await connection.requestName(connection.uniqueName) }
            #expect(error?.name == .invalidArgs)
        }
    }
}
