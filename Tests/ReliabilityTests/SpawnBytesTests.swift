import Foundation
import SafeText
import Spawn
import Testing

/// What a spawned program receives: each argument and each variable exactly
/// as the bytes it stands for (`EscapedBytes`), and nothing cut short.
struct SpawnBytesTests {
    /// The child prints each argument, then its whole environment, each
    /// followed by a NUL.
    static func received(_ arguments: [String], environment: [String]) async throws -> [[UInt8]] {
        let script = #"for a; do printf '%s\0' "$a"; done; exec /usr/bin/env -0"#
        let run = try await runCapturingOutput("/bin/sh", arguments: ["sh", "-c", script, "sh"] + arguments,
                                               environment: environment, deadline: .seconds(30))
        #expect(run.status == 0)
        return run.output.split(separator: 0, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    @Test func argumentsAndVariablesArriveAsTheirBytes() async throws {
        let notUTF8 = EscapedBytes.decode([0x63, 0x61, 0x66, 0xE9])  // "caf" and a Latin-1 é
        let astral = "\u{10FFFD}\u{1F600}"  // UTF-8 that begins with 0xF4 and escapes nothing
        let arguments = ["", "plain", "two words", notUTF8, astral, "café ✓", String(repeating: "x", count: 5000)]
        let environment = ["A=1", "EMPTY=", "BYTES=" + notUTF8, "ASTRAL=" + astral]
        // The shell adds PWD.
        let received = try await Self.received(arguments, environment: environment).filter { !$0.starts(with: Array("PWD=".utf8)) }
        #expect(received.count == arguments.count + environment.count)
        #expect(Array(received.prefix(arguments.count)) == arguments.map(EscapedBytes.encode))
        #expect(Set(received.dropFirst(arguments.count)) == Set(environment.map(EscapedBytes.encode)))
        #expect(received[3] == [0x63, 0x61, 0x66, 0xE9])
    }

    /// A NUL would end a C string early and run something else: refused.
    @Test(arguments: [(["a\u{0}b"], ["A=1"]), (["a"], ["A=1\u{0}B=2"]), (["a"], ["A=1", "\u{0}"])])
    func aNULIsRefused(arguments: [String], environment: [String]) {
        let error = #expect(throws: SpawnError.self) {
            try spawn("/bin/true", arguments: arguments, environment: environment)
        }
        #expect(error?.code == EINVAL)
    }
}
