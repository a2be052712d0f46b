import Foundation
import Spawn
import Testing
import TestSupport

/// A program held open for writing (`ETXTBSY`) is waited for, not failed:
/// `retryingWhileTextFileBusy`, which every spawner that runs a program
/// someone may only just have written goes through.
struct BusyProgramTests {
    static func exitStatus(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status
    }

    /// The failure the retry is for is real: the kernel refuses the exec.
    @Test func aProgramOpenForWritingCannotRun() throws {
        let script = try HeldScript(in: XDGTree())
        let error = #expect(throws: SpawnError.self) { try script.start() }
        #expect(error?.code == ETXTBSY)
    }

    /// Tried again until the writer lets go; here it lets go at the third
    /// try. (The limit is far off: a loaded machine's pauses run long.)
    @Test func aProgramIsRunOnceTheWriterLetsGo() async throws {
        let script = try HeldScript(in: XDGTree())
        var tries = 0
        let pid = try await retryingWhileTextFileBusy(within: .seconds(60)) { () throws(SpawnError) in
            tries += 1
            if tries == 3 { script.letGo() }
            return try script.start()
        }
        #expect(tries == 3)
        #expect(Self.exitStatus(pid) == 0)
    }

    /// A program that stays busy fails as busy once the time is up, after
    /// pauses that grew rather than a spin (1 + 2 + … + 50 + 50 ms fit in
    /// 200 ms at most nine times; fewer on a loaded machine).
    @Test func aProgramBusyPastTheLimitFails() async throws {
        let script = try HeldScript(in: XDGTree())
        var tries = 0
        let error = await #expect(throws: SpawnError.self) {
            _ = try await retryingWhileTextFileBusy(within: .milliseconds(200)) { () throws(SpawnError) in
                tries += 1
                return try script.start()
            }
        }
        #expect(error?.code == ETXTBSY)
        #expect(tries <= 9, "\(tries) tries")
    }

    /// Any other failure answers at once: a missing program is not waited for.
    @Test func otherFailuresAreNotRetried() async throws {
        var tries = 0
        let error = await #expect(throws: SpawnError.self) {
            _ = try await retryingWhileTextFileBusy { () throws(SpawnError) in
                tries += 1
                return try spawn("/nonexistent/program", arguments: ["program"], environment: [])
            }
        }
        #expect(error?.code == ENOENT)
        #expect(tries == 1)
    }

    /// A captured run (how the dmenu chooser runs its menu) waits for a busy
    /// program before it gives up: its pauses, 1 ms doubling to 50 ms, stop
    /// only once the next would pass 500 ms, so at least 450 ms go by. (A
    /// bound from below: a loaded machine only makes the wait longer.)
    @Test func aCapturedRunWaitsForABusyProgram() async throws {
        let script = try HeldScript(in: XDGTree())
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: SpawnError.self) {
            _ = try await runCapturingOutput(script.path, arguments: ["held"], environment: [], deadline: .seconds(5))
        }
        #expect(error?.code == ETXTBSY)
        #expect(clock.now - start >= .milliseconds(450))
    }
}
