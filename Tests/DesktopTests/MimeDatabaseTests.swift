import Desktop
import Foundation
import Testing
import XDG

/// The machine's real shared-mime-info database, read through the loader
/// the fallback uses.
@Suite struct MimeDatabaseTests {
    /// The real database, as Debian's shared-mime-info installs it, read
    /// through the same loader the fallback uses.
    @Test func theMachinesDatabaseReadsAsDesktopsReadIt() throws {
        try #require(FileManager.default.fileExists(atPath: "/usr/share/mime/globs2"), "shared-mime-info is not installed")
        let real = MimeGlobs.load(BaseDirectories(environment: ["HOME": "/nonexistent", "XDG_DATA_DIRS": "/usr/share"]))
        let expected: [(String, String)] = [
            ("index.html", "text/html"), ("index.HTM", "text/html"), ("page.xhtml", "application/xhtml+xml"),
            ("a.tar.gz", "application/x-compressed-tar"), ("Makefile", "text/x-makefile"), ("paper.pdf", "application/pdf"),
            ("photo.JPG", "image/jpeg"), ("notes.txt", "text/plain"), ("run.sh", "application/x-shellscript"),
            ("app.desktop", "application/x-desktop"),
        ]
        for (name, type) in expected { #expect(real.type(ofFileNamed: name) == type, "\(name)") }
        // Case-sensitive globs, each written twice (issue 25): *.c is C, *.C C++, core a core dump, CORE not.
        for (name, type) in [("main.c", "text/x-csrc"), ("main.C", "text/x-c++src"), ("core", "application/x-core")] {
            #expect(real.type(ofFileNamed: name) == type, "\(name)")
        }
        #expect(real.type(ofFileNamed: "CORE") != "application/x-core")
        #expect(real.type(ofFileNamed: "X.GS") != "text/x-genie")
        #expect(real.lineage(of: "application/xhtml+xml").contains("application/xml"))
    }
}
