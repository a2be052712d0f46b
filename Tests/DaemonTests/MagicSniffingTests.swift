import Desktop
import FileAccess
import Foundation
import Routing
import Testing
import TestSupport
import XDG

/// Files typed by their contents where the name does not decide, with the
/// machine's real MIME database, and the gate's check of every file's first
/// bytes for runnable contents (issue 25).
@Suite(.timeLimit(.minutes(1)))
struct MagicSniffingTests {
    /// A tree with the machine's whole MIME database (names and contents).
    static func tree() throws -> XDGTree {
        let tree = try XDGTree()
        try FileManager.default.createDirectory(atPath: tree.root + "/usr/share/mime", withIntermediateDirectories: true)
        for name in ["globs2", "aliases", "subclasses", "magic"] {
            let bytes = try #require(FileManager.default.contents(atPath: "/usr/share/mime/" + name), "shared-mime-info is not installed")
            try bytes.write(to: URL(fileURLWithPath: tree.root + "/usr/share/mime/" + name))
        }
        return tree
    }

    static func write(_ tree: XDGTree, _ name: String, _ bytes: [UInt8]) throws -> ValidatedURL {
        let path = tree.root + "/home/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try ValidatedURL("file://" + path)
    }

    static let pdf = Array("%PDF-1.7\n%\u{E2}\u{E3}\n1 0 obj\n".utf8)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    static let gzip: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3]
    static let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + Array(repeating: 0, count: 8) + [2, 0, 0x3E, 0]

    @Test(arguments: [
        ("download", pdf, "application/pdf"),
        ("image", png, "image/png"),
        ("archive", gzip, "application/gzip"),
        ("letter-to-bob", Array("Dear Bob,\nthanks.\n".utf8), "text/plain"),
        ("README", Array("Read me first.\n".utf8), "text/x-readme"),
        (".bashrc-copy", Array("alias ll='ls -l'\n".utf8), "text/plain"),
        ("empty", [], "text/plain"),
        ("noise", [0x00, 0xFF, 0x10, 0x02], "application/octet-stream"),
        ("page", Array("<!DOCTYPE html>\n<html><head><title>x</title>".utf8), "text/html"),
        // The name decides when it can: a PDF's bytes under *.txt stay text/plain, as the spec says.
        ("letter.txt", pdf, "text/plain"),
        ("main.c", Array("int main(void) { return 0; }\n".utf8), "text/x-csrc"),
    ])
    func theNameThenTheContentsThenTextDecide(name: String, bytes: [UInt8], type: String) throws {
        let tree = try Self.tree()
        let url = try Self.write(tree, name, bytes)
        let file = try LocalFile(url, mime: MimeDatabase.load(BaseDirectories(environment: tree.environment)))
        #expect(file.mimeType == type, "\(name): \(file.typing?.explanation ?? "")")
    }

    @Test func equalGlobsAreSettledByTheContents() throws {
        let tree = try Self.tree()
        let mime = MimeDatabase.load(BaseDirectories(environment: tree.environment))
        // *.ts is both an MPEG transport stream and a Qt translation, at the same weight.
        var stream = [UInt8](repeating: 0xFF, count: 1024)
        for packet in stride(from: 0, to: 1024, by: 188) { stream[packet] = 0x47 }
        let recording = try LocalFile(try Self.write(tree, "recording.ts", stream), mime: mime)
        #expect(recording.mimeType == "video/mp2t", "\(recording.typing?.explanation ?? "")")
        let translation = try LocalFile(try Self.write(tree, "app_de.ts", Array("<?xml version=\"1.0\"?>\n<TS version=\"2.1\" language=\"de\">\n".utf8)), mime: mime)
        #expect(translation.mimeType == "text/vnd.trolltech.linguist", "\(translation.typing?.explanation ?? "")")
    }

    @Test(arguments: [
        ("notes.txt", Array("#!/bin/sh\nrm -rf ~\n".utf8)),
        ("photo.jpg", elf),
        ("README", Array("#!/usr/bin/env bash\necho\n".utf8)),
        ("invoice.pdf", Array("MZ\u{90}\u{0}\u{3}\u{0}".utf8)),
    ])
    func runnableContentsAreRefusedWhateverTheName(name: String, bytes: [UInt8]) throws {
        let tree = try Self.tree()
        let url = try Self.write(tree, name, bytes)
        #expect(throws: LaunchGate.Refusal.self, "\(name)") {
            try LaunchGate.admit(url, mime: MimeDatabase.load(BaseDirectories(environment: tree.environment)))
        }
        // The controls: the same names with harmless contents pass.
        let harmless = try Self.write(tree, "ok-" + name, name == "photo.jpg" ? [0xFF, 0xD8, 0xFF, 0xE0] : Array("plain words\n".utf8))
        _ = try LaunchGate.admit(harmless, mime: MimeDatabase.load(BaseDirectories(environment: tree.environment)))
    }

    @Test func onlyRegularFilesAreRead() throws {
        let tree = try Self.tree()
        let fifo = tree.root + "/home/pipe"
        try #require(mkfifo(fifo, 0o600) == 0)
        // Were it opened for reading without O_NONBLOCK, this would wait for a writer for ever.
        let file = try LocalFile(try ValidatedURL("file://" + fifo), mime: MimeDatabase.load(BaseDirectories(environment: tree.environment)))
        #expect(file.mimeType == "inode/fifo")
        #expect(try FileSystem.prefix(of: fifo, count: 16) == nil)
        #expect(try LocalFile(try ValidatedURL("file:///dev/null"), mime: MimeDatabase.load(BaseDirectories(environment: tree.environment))).mimeType
            == "inode/chardevice")
    }

    @Test func theReadIsBounded() throws {
        let tree = try Self.tree()
        let path = tree.root + "/home/huge"
        // A sparse 16 GiB file of zeros: reading it whole would take far longer than the limit below.
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        try #require(fd >= 0 && ftruncate(fd, 1 << 34) == 0)
        close(fd)
        let mime = MimeDatabase.load(BaseDirectories(environment: tree.environment))
        #expect(mime.magic.extent <= MimeMagic.maximumExtent && mime.magic.extent > 0)
        let started = ContinuousClock.now
        let file = try LocalFile(try ValidatedURL("file://" + path), mime: mime)
        #expect(file.mimeType == "application/octet-stream")
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(try FileSystem.prefix(of: path, count: 100)?.count == 100)
    }

    @Test func aChangedDatabaseIsReadAgain() throws {
        let tree = try Self.tree()
        let base = BaseDirectories(environment: tree.environment)
        let first = MimeDatabase.load(base)
        #expect(MimeDatabase.load(base).globs == first.globs)
        try "50:application/x-new:*.newthing\n".write(toFile: tree.root + "/data/mime-globs2", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: tree.root + "/data/mime", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: tree.root + "/data/mime-globs2", toPath: tree.root + "/data/mime/globs2")
        #expect(MimeDatabase.load(base).globs.type(ofFileNamed: "x.newthing") == "application/x-new")
    }
}
