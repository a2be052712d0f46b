import Foundation
import Routing
import Testing
import TestSupport
import XDG

@testable import Desktop

/// Our file typing against GLib's (`gio info`'s `standard::content-type`,
/// which sniffs when the name is not certain) on generated files, with the
/// machine's MIME database in a private tree (issue 25). Every name is
/// tried with every contents, so the name-decides, contents-decide and
/// conflicting-globs paths all meet GLib.
@Suite(.timeLimit(.minutes(2)))
struct GLibFileTypingTests {
    static let names = [
        "download", "letter", "README", "notes.txt", "paper.pdf", "photo.png", "recording.ts", "page.html", "data.bin",
        "Makefile", "main.c", "main.C", "archive.tar.gz", "report.doc", "x.TS", ".hidden",
    ]

    static let contents: [(String, [UInt8])] = {
        var stream = [UInt8](repeating: 0xFF, count: 1024)
        for packet in stride(from: 0, to: 1024, by: 188) { stream[packet] = 0x47 }
        return [
            ("pdf", Array("%PDF-1.7\n%\u{E2}\u{E3}\n".utf8)),
            ("png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)),
            ("gzip", [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3]),
            ("text", Array("Dear Bob,\nthanks for the notes.\n".utf8)),
            ("utf8", Array("Grüße, 你好, ☃\n".utf8)),
            ("binary", [0x00, 0x01, 0x02, 0x03, 0xFE, 0xFF]),
            ("empty", []),
            ("stream", stream),
            ("linguist", Array("<?xml version=\"1.0\"?>\n<TS version=\"2.1\" language=\"de\">\n".utf8)),
            ("html", Array("<!DOCTYPE html>\n<html><head><title>t</title></head>".utf8)),
            ("ole", [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 24)),
        ]
    }()

    @Test func everyNameWithEveryContentsIsTypedAsGLibTypesIt() async throws {
        let tree = try XDGTree()
        try FileManager.default.createDirectory(atPath: tree.root + "/usr/share/mime", withIntermediateDirectories: true)
        for name in ["globs2", "aliases", "subclasses", "magic", "mime.cache"] {
            let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/mime/" + name), "shared-mime-info is not installed")
            try bytes.write(to: URL(fileURLWithPath: tree.root + "/usr/share/mime/" + name))
        }
        var paths: [String] = []
        for (label, bytes) in Self.contents {
            try FileManager.default.createDirectory(atPath: tree.root + "/home/" + label, withIntermediateDirectories: true)
            for name in Self.names {
                let path = tree.root + "/home/" + label + "/" + name
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                paths.append(path)
            }
        }
        var environment = tree.environment
        environment["XDG_DATA_DIRS"] = tree.root + "/usr/share"
        let result = try await run(["gio", "info", "-a", "standard::content-type"] + paths, environment: environment)
        try #require(result.status == 0, "gio info: \(result.stderr)")
        var glib: [String: String] = [:]
        var current = ""
        for line in result.stdout.split(separator: "\n") {
            if line.hasPrefix("local path: ") { current = String(line.dropFirst("local path: ".count)) }
            if line.hasPrefix("  standard::content-type: ") { glib[current] = String(line.dropFirst("  standard::content-type: ".count)) }
        }
        let mime = MimeDatabase.load(BaseDirectories(environment: environment))
        var compared = 0
        for path in paths {
            let file = try LocalFile(try ValidatedURL(FileURL.forPath(path, workingDirectory: "/")), mime: mime)
            let theirs = try #require(glib[path], "gio said nothing of \(path)")
            compared += 1
            // The one difference: GLib types every empty file text/plain, whatever
            // its name (its local-file code special-cases size 0 before the
            // globs); the specification's order lets the name decide first
            // (or, for *.ts, the globs and then the contents), and we follow
            // it. Empty files whose name matches no glob agree.
            if path.contains("/home/empty/"), file.typing?.reason != .text {
                #expect(theirs == "text/plain", "\(path): GLib \(theirs)")
                continue
            }
            #expect(file.mimeType == theirs, "\(path): ours \(file.mimeType) (\(file.typing?.explanation ?? "")), GLib \(theirs)")
        }
        #expect(compared == Self.names.count * Self.contents.count)
    }
}
