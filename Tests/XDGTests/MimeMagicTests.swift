import Foundation
import Testing

@testable import XDG
import MagicReference

/// The contents rules, read from `magic` files that the real
/// `update-mime-database` wrote from small packages, and the spec's order
/// of globs, contents and the text/binary check (`FileTyping`).
@Suite(.timeLimit(.minutes(1)))
struct MimeMagicTests {
    /// The `mime/` directory `update-mime-database` makes of `package` (a
    /// `<mime-info>` document's types), as `(globs2, magic)`.
    static func database(_ package: String) throws -> (globs2: String, magic: [UInt8]) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("openurld-magic-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/mime/packages", withIntermediateDirectories: true)
        let xml = "<?xml version=\"1.0\"?>\n<mime-info xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\">\n\(package)\n</mime-info>\n"
        try xml.write(toFile: root + "/mime/packages/test.xml", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/update-mime-database")
        process.arguments = [root + "/mime"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": root]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "update-mime-database failed")
        let globs2 = (try? String(contentsOfFile: root + "/mime/globs2", encoding: .utf8)) ?? ""
        let magic = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: root + "/mime/magic"))) ?? Data())
        return (globs2, magic)
    }

    static let package = """
        <mime-type type="application/x-outer"><magic priority="60">
          <match type="string" value="OUT" offset="0"><match type="string" value="IN" offset="8"/></match>
        </magic></mime-type>
        <mime-type type="application/x-ranged"><magic priority="50">
          <match type="string" value="NEEDLE" offset="4:20"/>
        </magic></mime-type>
        <mime-type type="application/x-masked"><magic priority="50">
          <match type="big32" value="0x12340000" mask="0xffff0000" offset="0"/>
        </magic></mime-type>
        <mime-type type="application/x-host"><magic priority="50">
          <match type="host16" value="0x0102" offset="0"/>
        </magic></mime-type>
        <mime-type type="application/x-generic"><magic priority="20">
          <match type="string" value="ZEN" offset="0"/>
        </magic></mime-type>
        <mime-type type="application/x-specific"><magic priority="80">
          <match type="string" value="ZENSPEC" offset="0"/>
        </magic></mime-type>
        <mime-type type="video/x-stream"><glob pattern="*.ts"/><magic><match type="byte" value="0x47" offset="0"/></magic></mime-type>
        <mime-type type="text/x-translation"><sub-class-of type="text/plain"/><glob pattern="*.ts"/></mime-type>
        <mime-type type="application/x-word"><sub-class-of type="application/x-ole"/><glob pattern="*.doc"/></mime-type>
        <mime-type type="text/x-doc-text"><glob pattern="*.doc"/></mime-type>
        <mime-type type="application/x-ole"><magic><match type="string" value="OLE!" offset="0"/></magic></mime-type>
        """

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func rulesMatchAsTheSpecificationSays() throws {
        let magic = MimeMagic(directories: [try Self.database(Self.package).magic])
        func type(_ data: [UInt8]) -> String? { magic.match(data)?.type }
        // Nested: the parent and one child.
        #expect(type(Self.bytes("OUT.....IN")) == "application/x-outer")
        #expect(type(Self.bytes("OUT.....NO")) == nil)
        // A range of offsets: anywhere from 4 to 20.
        #expect(type(Self.bytes("....NEEDLE")) == "application/x-ranged")
        #expect(type(Self.bytes(String(repeating: ".", count: 20) + "NEEDLE")) == "application/x-ranged")
        #expect(type(Self.bytes(String(repeating: ".", count: 21) + "NEEDLE")) == nil)
        // A mask: only the first two bytes count.
        #expect(type([0x12, 0x34, 0xAB, 0xCD]) == "application/x-masked")
        #expect(type([0x12, 0x35, 0x00, 0x00]) == nil)
        // host16 is stored big-endian and read in this machine's order (little-endian here).
        #expect(type([0x02, 0x01]) == "application/x-host")
        // Higher priority first.
        #expect(type(Self.bytes("ZENSPEC")) == "application/x-specific")
        #expect(type(Self.bytes("ZENERAL")) == "application/x-generic")
        // Data shorter than a rule's value never matches it.
        #expect(type(Self.bytes("OU")) == nil)
        #expect(magic.extent >= 26 && magic.extent <= MimeMagic.maximumExtent)
    }

    @Test func aMoreImportantDirectoryCanDropAnotherDirectorysRules() throws {
        let system = try Self.database(Self.package).magic
        let user = try Self.database(#"<mime-type type="application/x-generic"><magic-deleteall/><magic><match type="string" value="MINE" offset="0"/></magic></mime-type>"#).magic
        let magic = MimeMagic(directories: [user, system])
        #expect(magic.match(Self.bytes("ZENERAL")) == nil)
        #expect(magic.match(Self.bytes("MINE"))?.type == "application/x-generic")
        #expect(magic.match(Self.bytes("ZENSPEC"))?.type == "application/x-specific")
    }

    @Test(arguments: [
        // The name decides.
        ("a.pdfx", "OUT.....IN", "application/x-pdfx", "the name matches *.pdfx"),
        // No glob: the contents.
        ("noname", "ZENSPEC", "application/x-specific", "no glob matches the name; the contents match application/x-specific's rules (priority 80)"),
        // No glob, no rule: text or binary; an empty file is text (nothing in it is a control character).
        ("README", "plain words\n", "text/plain", "no glob matches the name and no contents rule matches; the first bytes are text"),
        ("blob", "\u{0}\u{1}\u{2}", "application/octet-stream", "no glob matches the name and no contents rule matches; the first bytes are not text (or cannot be read)"),
        ("empty", "", "text/plain", "no glob matches the name and no contents rule matches; the first bytes are text"),
        // Equal globs conflict: the contents choose a glob of their type or a subclass of it.
        ("rec.ts", "\u{47}\u{40}\u{11}", "video/x-stream", "the name's best globs disagree; the contents (video/x-stream) choose *.ts"),
        ("app.ts", "<TS version=\"2.1\">", "text/x-translation", "the name's best globs disagree; the contents (text/plain) choose *.ts"),
        ("letter.doc", "OLE!....", "application/x-word", "the name's best globs disagree; the contents (application/x-ole) choose *.doc"),
        ("notes.doc", "just text", "text/x-doc-text", "the name's best globs disagree; the contents (text/plain) choose *.doc"),
    ])
    func globsThenContentsThenText(name: String, contents: String, type: String, why: String) throws {
        let database = try Self.database(Self.package + #"<mime-type type="application/x-pdfx"><glob pattern="*.pdfx"/></mime-type>"#)
        let globs = MimeGlobs(directories: [(database.globs2, nil, "text/x-translation text/plain\napplication/x-word application/x-ole\n")])
        var reads = 0
        let typing = FileTyping(name: name, globs: globs, magic: MimeMagic(directories: [database.magic])) { count in
            reads += 1
            return Array(Self.bytes(contents).prefix(count))
        }
        #expect(typing.type == type, "\(name)")
        #expect(typing.explanation == why, "\(name)")
        #expect(reads == (name == "a.pdfx" ? 0 : 1), "the contents are read only when the name does not decide, and once")
    }

    @Test func unreadableContentsFallBackToTheFirstGlob() throws {
        let database = try Self.database(Self.package)
        let typing = FileTyping(name: "x.ts", globs: MimeGlobs(directories: [(database.globs2, nil, nil)]),
                                magic: MimeMagic(directories: [database.magic])) { _ in nil }
        #expect(["video/x-stream", "text/x-translation"].contains(typing.type))
        #expect(typing.contentsType == nil)
        guard case .firstOfConflictingGlobs = typing.reason else { Issue.record("\(typing.reason)"); return }
    }

    @Test func withoutContentsRulesTheTextCheckStillReadsItsBytes() {
        var asked = 0
        let typing = FileTyping(name: "blob", globs: MimeGlobs(directories: []), magic: MimeMagic(directories: [])) { count in
            asked = count
            return Array([UInt8](repeating: 0x41, count: 100) + [0x00, 0x01].prefix(max(0, count - 100)))
        }
        #expect(asked == MimeMagic.textCheckLength)
        #expect(typing.type == "application/octet-stream", "\(typing.explanation)")
    }

    @Test func textIsWhatTheSpecificationCallsText() {
        #expect(MimeMagic.looksLikeText(Self.bytes("tab\tline\r\nform\u{C}esc\u{1B}[0m café")))
        #expect(MimeMagic.looksLikeText([]))
        #expect(!MimeMagic.looksLikeText([0x41, 0x00, 0x42]))
        #expect(!MimeMagic.looksLikeText([0x7F]))
        // Only the first 128 bytes are looked at.
        #expect(MimeMagic.looksLikeText(Array(repeating: 0x41, count: 128) + [0x00]))
    }

    @Test(arguments: [
        [UInt8](), Array("MIME-Magic\0".utf8), Array("MIME-Magic\0\n[50:text/x-a]\n>0=".utf8),
        Array("MIME-Magic\0\n[50:text/x-a]\n>0=\u{0}\u{9}short".utf8), Array("MIME-Magic\0\n[oops]\n>0=\u{0}\u{1}A\n".utf8),
        Array("MIME-Magic\0\n>0=\u{0}\u{1}A\n".utf8), Array("MIME-Magic\0\n[50:text/x-a]\n3>0=\u{0}\u{1}A\n".utf8),
        Array("MIME-Magic\0\n[50:text/x-a]\n>99999999999=\u{0}\u{1}A\n".utf8),
        Array("not a magic file at all".utf8),
    ])
    func malformedFilesTypeNothingAndNeverAbort(_ bytes: [UInt8]) {
        let magic = MimeMagic(directories: [bytes])
        #expect(magic.match(Array("A".utf8)) == nil)
        #expect(magic.extent <= MimeMagic.maximumExtent)
    }

    @Test func anUnknownFieldIgnoresItsLineOnly() {
        let file = Array("MIME-Magic\0\n[50:text/x-a]\n>0=\u{0}\u{1}A!future\n>0=\u{0}\u{1}B\n".utf8)
        let magic = MimeMagic(directories: [file])
        #expect(magic.match(Array("A".utf8)) == nil)
        #expect(magic.match(Array("B".utf8))?.type == "text/x-a")
    }

    @Test func theMachinesDatabaseIsReadWhole() throws {
        let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/mime/magic"), "shared-mime-info is not installed")
        let magic = MimeMagic(directories: [[UInt8](bytes)])
        #expect(magic.sections.count > 400, "\(magic.sections.count) sections")
        #expect(magic.extent > 256 && magic.extent <= MimeMagic.maximumExtent, "extent \(magic.extent)")
        #expect(magic.match(Array("%PDF-1.7\n".utf8))?.type == "application/pdf")
        #expect(magic.match([0x89] + Array("PNG\r\n\u{1A}\n".utf8))?.type == "image/png")
        #expect(magic.match([0x1F, 0x8B, 0x08, 0x00])?.type == "application/gzip")
        #expect(magic.match(Array("#!/bin/sh\necho hi\n".utf8))?.type == "application/x-shellscript")
        #expect(magic.match([0x7F] + Array("ELF\u{2}\u{1}\u{1}".utf8)).map { $0.type.hasPrefix("application/x-") } == true)
    }

    /// The laid-out walk agrees with the rules read plainly over their tree
    /// (`MagicReference`), with the machine's whole database and its
    /// runnable part: on bytes made to meet each rule, nested ones too, at
    /// the last offset it tries (with its parents where they fit), on those
    /// bytes cut one short, and on the first bytes of files of every kind on
    /// this machine.
    @Test func theLaidOutRulesMatchAsTheTreeReads() throws {
        let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/mime/magic"), "shared-mime-info is not installed")
        let whole = MimeMagic(directories: [[UInt8](bytes)])
        let runnable = whole.restricted(to: ["application/x-executable", "application/x-sharedlib", "application/x-shellscript",
                                             "application/x-desktop", "text/x-python3", "application/x-ms-dos-executable"])
        #expect(!runnable.sections.isEmpty)
        var inputs: [[UInt8]] = [[]]
        // Every rule, nested ones too: its value and its parents' each at the last offset they try.
        func meet(_ rule: MimeMagic.Match, on data: [UInt8]) {
            var data = data
            let start = rule.offset + rule.range - 1
            if start + rule.value.count <= data.count { data.replaceSubrange(start..<(start + rule.value.count), with: rule.value) }
            inputs.append(data)
            inputs.append(Array(data.dropLast()))
            for child in rule.children { meet(child, on: data) }
        }
        for section in whole.sections {
            for rule in section.matches { meet(rule, on: [UInt8](repeating: 0, count: min(rule.extent, MimeMagic.maximumExtent))) }
        }
        var files = 0
        for root in ["/usr/bin", "/usr/share/mime", "/usr/share/icons", "/usr/share/doc", "/usr/lib/python3", "/etc"] {
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            for case let path as String in walker {
                guard files < 600 else { break }
                // Regular files only: a FIFO would block the read, a link may lead anywhere.
                guard walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular,
                      let handle = FileHandle(forReadingAtPath: root + "/" + path) else { continue }
                defer { try? handle.close() }
                if let data = try? handle.read(upToCount: whole.extent), !data.isEmpty {
                    inputs.append([UInt8](data))
                    files += 1
                }
            }
        }
        #expect(files > 400, "\(files) files read")
        var typed = Set<String>()
        for data in inputs {
            for magic in [whole, runnable] {
                let expected = MagicReference.match(magic, data)
                #expect(magic.match(data) == expected, "\(data.prefix(32))")
                if let expected { typed.insert(expected.type) }
            }
        }
        #expect(typed.count > 300, "\(typed.count) types matched")
    }
}
