import DBus
import DispatcherAPI
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// What reaches the daemon's log and the user's terminal from peers and URLs
/// (issue 15, items 4 and 5), against the built `openurld` and `openurl`.
@Suite(.timeLimit(.minutes(1)))
struct PeerTextTests {
    static let hostile = "evil\u{1B}[2J\u{1B}]0;pwned\u{07}\u{9B}31m\u{202E}gpj.exe"

    static func isClean(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B || $0.value == 0x202E }
    }

    @Test func handlerNamesWithControlOrBidiCharactersAreRefused() async throws {
        try await DaemonHarness.with { d in
            let client = try await d.bus.connect()
            defer { client.close() }
            await #expect(throws: DBusError.self) {
                try await d.register(client, spec(["https"], name: Self.hostile)) { _, _ in answer("handled") }
            }
            #expect(try await d.handlers(client).isEmpty)
        }
    }

    /// Error replies often quote the caller's input; every one the daemon
    /// sends spells out control and bidi characters (`Message.errorReply`),
    /// whichever method made it: they reach GIO's dialogs and terminals.
    @Test func errorRepliesNeverCarryRawPeerText() async throws {
        try await DaemonHarness.with { d in
            let client = try await d.bus.connect()
            defer { client.close() }
            let calls: [(InterfaceName, MemberName, [Value])] = [
                ("org.freedesktop.Application", "Open", [.array(.string, [.string(Self.hostile)]), [String: Variant]().dbusValue]),
                ("org.freedesktop.Application", "ActivateAction", [.string(Self.hostile), .array(.variant, []), [String: Variant]().dbusValue]),
                ("org.freedesktop.DBus.Properties", "Get", [.string(DispatcherAPI.dispatcherInterface.rawValue), .string(Self.hostile)]),
                (DispatcherAPI.dispatcherInterface, "DetectLinks", [.string("text"), ["kinds": Variant([Self.hostile])].dbusValue]),
                (DispatcherAPI.dispatcherInterface, "DetectLinks", [.string("text"), ["region": Variant(Self.hostile)].dbusValue]),
                (DispatcherAPI.dispatcherInterface, "OpenURL", [.string(Self.hostile)]),
            ]
            var quoting = 0
            for (interface, member, arguments) in calls {
                let error = await #expect(throws: DBusError.self, "\(member)") {
                    try await client.call(DispatcherAPI.busName, DispatcherAPI.objectPath, interface, member, arguments)
                }
                guard let error else { continue }
                #expect(Self.isClean(error.message), "\(member): \(error.message.debugDescription)")
                if error.message.contains("\\u{1B}") { quoting += 1 }
            }
            // Those that quote the input spell the characters out.
            #expect(quoting >= 3)
        }
    }

    @Test func peerTextInTheLogIsEscapedAndRuleFailuresLogNoPath() async throws {
        let tree = try XDGTree()
        try tree.app("fallback.desktop", schemes: ["https"])
        try tree.write("config/openurld/rules.d/10-mirror.rules", """
            [Rule mirror]
            Hosts=mirror.example
            Match=^https://mirror\\.example/(.*)$
            Rewrite=https://mirror.example/$1 oops
            """)
        let log = try makeTemporaryDirectory(prefix: "openurld-log") + "/daemon.log"
        let logFD = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(logFD) }
        try await withDaemon(tree: tree, stderr: logFD) { bus, client, _ in
            // A handler whose error reply carries terminal escapes and a bidi override.
            let handler = try await bus.connect()
            defer { handler.close() }
            handler.export([ExportedInterface(DispatcherAPI.handlerInterface, methods: [
                ExportedMethod(
                    "HandleURL", arguments: [Argument("url", .string), Argument("context", .dictionary(key: .string, value: .variant))],
                    results: [Argument("result", .string), Argument("url", .string)],
                    handler: { _ throws(DBusError) in throw DBusError(.failed, Self.hostile) }),
            ])], at: "/h")
            _ = try await handler.call(
                DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.dispatcherInterface, "RegisterHandler",
                [.objectPath("/h"), ["schemes": Variant(["https"]), "hosts": Variant(["peer.example"]), "name": Variant("peer")].dbusValue])
            _ = try await client.open("https://peer.example/x")
            _ = try await client.open("https://mirror.example/SECRET-PATH?SECRET-QUERY")
            // A file's path is its URL's path: refused, missing or unopenable, it is not logged.
            _ = try? await client.open("file:///SECRET-DIR/missing.txt")
            _ = try? await client.open("file://" + tree.root + "/bin/recorder")
            // A very long host is cut short in the log line.
            let long = String(repeating: "a", count: 60) + "."
            _ = try? await client.open("https://" + String(repeating: long, count: 300) + "example/")
            // A URL's line is kept for a millisecond or so (`LineBatch`), and
            // lines are written in order: once the last URL's is in the file,
            // every line before it is. (A call answered after it was no
            // sign: its answer can come before the batch is written.)
            var text = ""
            let lastLineIn = try await eventually(within: .seconds(10)) {
                text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                return text.contains(" bytes)/…")
            }
            #expect(lastLineIn, "the long host's line, cut short: \(text.suffix(400))")
            #expect(text.split(separator: "\n").allSatisfy { $0.utf8.count <= 1024 }, "every line is bounded")
            #expect(text.contains("failed: org.freedesktop.DBus.Error.Failed: evil\\u{1B}[2J"), "\(text)")
            #expect(Self.isClean(text))
            #expect(text.contains("rule 'mirror'"))
            #expect(!text.contains("SECRET"), "\(text)")
        }
    }
}

/// The daemon's line for each URL, built in place (`LineBuffer`), against
/// the built `openurld`.
@Suite(.timeLimit(.minutes(1)))
struct URLLineTests {
    /// With `--verbose` the line carries the whole URL; one longer than a
    /// line may be is cut as every line is, saying how much was left out,
    /// and the next URL's line is whole.
    @Test func aVerboseLineTooLongForALineIsCut() async throws {
        let tree = try XDGTree()
        try tree.app("fallback.desktop", schemes: ["https"])
        let log = try makeTemporaryDirectory(prefix: "openurld-log") + "/daemon.log"
        let logFD = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(logFD) }
        try await withDaemon(tree: tree, arguments: ["--verbose"], stderr: logFD) { _, client, _ in
            let long = "https://long.example/" + String(repeating: "p", count: 1500)
            #expect(try await client.open(long).accepted)
            #expect(try await client.open("https://short.example/after").accepted)
            // Each line is kept for a millisecond or so (`LineBatch`).
            var lines: [Substring] = []
            _ = try await eventually(within: .seconds(10)) {
                lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                return lines.contains { $0.hasPrefix("<6>open https://short.example/after from ") }
            }
            let cut = try #require(lines.first { $0.hasPrefix("<6>open https://long.example/ppp") }, "\(lines)")
            #expect(cut.utf8.count <= "<6>".utf8.count + 1000, "\(cut.utf8.count) bytes")
            #expect(cut.hasSuffix(" more bytes)"), "\(cut.suffix(80))")
            #expect(lines.contains { $0.hasPrefix("<6>open https://short.example/after from ") && $0.hasSuffix(": opened with fallback.desktop") }, "\(lines)")
        }
    }
}

/// Activation tokens are passed to every handler and into launched apps'
/// environments (issue 15, item 10).
@Suite(.timeLimit(.minutes(1)))
struct ActivationTokenTests {
    @Test(arguments: [String(repeating: "t", count: 200_000), "a\nb", "tok en", "\u{1B}[2J", "tök"])
    func oversizedOrUnprintableTokensAreInvalidArgs(_ token: String) async throws {
        try await DaemonHarness.with { d in
            let client = try await d.bus.connect()
            defer { client.close() }
            await #expect(throws: DBusError.self) {
                _ = try await d.openWithOptions(client, "https://x.example/", ["activation-token": Variant(token)])
            }
            await #expect(throws: DBusError.self) {
                _ = try await client.call(
                    DispatcherAPI.busName, DispatcherAPI.objectPath, DispatcherAPI.applicationInterface, "Open",
                    [.array(.string, [.string("https://x.example/")]), ["desktop-startup-id": Variant(token)].dbusValue])
            }
            #expect(d.fallback.urls.isEmpty)
        }
    }

    @Test func anOrdinaryTokenReachesTheFallback() async throws {
        try await DaemonHarness.with { d in
            let client = try await d.bus.connect()
            defer { client.close() }
            let token = "gnome-shell/Terminal/2345-0-host_TIME123456"
            _ = try await d.openWithOptions(client, "https://x.example/", ["activation-token": Variant(token)])
            #expect(d.fallback.opened.withLock { $0.map(\.token) } == [token])
        }
    }
}
