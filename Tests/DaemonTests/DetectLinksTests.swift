import DBus
import DispatcherAPI
import Foundation
import Testing
import TestSupport

/// `DetectLinks` on the built daemon, through our client and through gdbus.
@Suite(.timeLimit(.minutes(1)))
struct DetectLinksTests {
    @Test func linksComeBackWithUTF8RangesKindsAndURLs() async throws {
        try await withDaemon(tree: try XDGTree()) { bus, client, _ in

            let text = "é [docs](https://example.com/a_(b)) mail jane@example.com, call +1 (555) 010-9999 or zoommtg://zoom.us/j/1."
            let links = try await client.detectLinks(in: text)
            #expect(links.map(\.kind.rawValue) == ["web", "email", "phone", "other"])
            #expect(links.map(\.url) == ["https://example.com/a_(b)", "mailto:jane@example.com", "tel:+15550109999", "zoommtg://zoom.us/j/1"])
            let bytes = Array(text.utf8)
            let covered = links.map { String(decoding: bytes[Int($0.offset)..<Int($0.offset + $0.length)], as: UTF8.self) }
            #expect(covered == ["[docs](https://example.com/a_(b))", "jane@example.com", "+1 (555) 010-9999", "zoommtg://zoom.us/j/1"])
            #expect(links.first?.offset == 3, "offsets count UTF-8 bytes: é is two")

            #expect(try await client.detectLinks(in: text, kinds: ["phone", "email"]).map(\.kind.rawValue) == ["email", "phone"])
            #expect(try await client.detectLinks(in: "").isEmpty)
            // National numbers: national without a region (the daemon does not
            // know the caller's locale), international in the one given.
            #expect(try await client.detectLinks(in: "06 12 34 56 78").map(\.url) == ["tel:0612345678"])
            #expect(try await client.detectLinks(in: "06 12 34 56 78", region: "fr").map(\.url) == ["tel:+33612345678"])

            // An independent client reads the same a(uuss).
            let gdbus = try await run(["gdbus", "call", "--address", bus.address, "--dest", "org.openurld.Dispatcher1",
                                       "--object-path", "/org/openurld/Dispatcher1", "--method", "org.openurld.Dispatcher1.DetectLinks",
                                       "see www.example.org.", "{'kinds': <['web']>}"])
            #expect(gdbus.stdout == "([(uint32 4, uint32 15, 'web', 'https://www.example.org')],)\n", "\(gdbus.stderr)")
        }
    }

    @Test func badArgumentsAreInvalidArgsWithTheReason() async throws {
        try await withDaemon(tree: try XDGTree()) { bus, client, _ in
            func failure(_ text: String, kinds: [String]? = nil) async -> DBusError? {
                do {
                    _ = try await client.detectLinks(in: text, kinds: kinds)
                    return nil
                } catch { return error }
            }
            let big = await failure(String(repeating: "a", count: (1 << 20) + 1))
            #expect(big?.name == .invalidArgs && big?.message == "text is 1048577 bytes long; the limit is 1048576")
            let unknown = await failure("x", kinds: ["web", "fax"])
            #expect(unknown?.name == .invalidArgs && unknown?.message == "unknown kind 'fax' (known kinds: web, email, phone, other)")
            #expect(await failure("x", kinds: [])?.name == .invalidArgs)
            let wrongType = try await run(["gdbus", "call", "--address", bus.address, "--dest", "org.openurld.Dispatcher1",
                                           "--object-path", "/org/openurld/Dispatcher1", "--method", "org.openurld.Dispatcher1.DetectLinks",
                                           "x", "{'kinds': <'web'>}"])
            #expect(wrongType.stderr.contains("InvalidArgs: option 'kinds' must have type 'as', not 's'"), "\(wrongType.stderr)")
            let region = try await run(["gdbus", "call", "--address", bus.address, "--dest", "org.openurld.Dispatcher1",
                                        "--object-path", "/org/openurld/Dispatcher1", "--method", "org.openurld.Dispatcher1.DetectLinks",
                                        "x", "{'region': <'XX'>}"])
            #expect(region.stderr.contains("InvalidArgs: unknown region 'XX'"), "\(region.stderr)")
            // Exactly the limit is fine, and the daemon is still serving.
            #expect(try await client.detectLinks(in: String(repeating: "a", count: 1 << 20)).isEmpty)
        }
    }
}
