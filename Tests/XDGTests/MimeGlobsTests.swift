import Testing
import XDG

/// File names to MIME types, from tables.
@Suite struct MimeGlobsTests {
    static let globs = MimeGlobs(directories: [
        (globs2: """
            # weight:type:pattern[:flags]
            80:text/html:*.html
            50:application/xhtml+xml:*.html
            50:application/x-compressed-tar:*.tar.gz
            50:application/gzip:*.gz
            50:text/x-makefile:makefile
            50:text/x-readme:README*
            50:text/x-c++src:*.C:cs
            50:text/x-csrc:*.c:cs
            40:image/x-olympus-orf:*.orf
            50:text/x-log:*.log.[0-9]
            50:application/x-mine:__NOGLOBS__
            """, aliases: "text/xml application/xml\n", subclasses: "application/xhtml+xml application/xml\napplication/xml text/plain\n"),
        (globs2: "50:application/x-mine:*.mine\n60:image/x-olympus-orf:*.ORF\n", aliases: nil, subclasses: nil),
    ])

    @Test(arguments: [
        ("page.html", "text/html"),               // the higher weight of two equal patterns
        ("PAGE.HTML", "text/html"),               // case-insensitive unless cs
        ("a.tar.gz", "application/x-compressed-tar"),  // the longest suffix
        ("a.gz", "application/gzip"),
        ("Makefile", "text/x-makefile"),          // a literal name
        ("README.md", "text/x-readme"),           // a full glob
        ("x.c", "text/x-csrc"), ("x.C", "text/x-c++src"),
        ("raw.orf", "image/x-olympus-orf"),       // globs of all directories add up
        ("app.log.3", "text/x-log"),
        ("x.mine", nil),                          // cleared by __NOGLOBS__ in a more important directory
        ("no-extension", nil),
    ] as [(String, String?)])
    func fileNamesHaveTheirTypes(_ name: String, _ type: String?) {
        #expect(Self.globs.type(ofFileNamed: name) == type)
    }

    @Test func lineageWalksDeclaredAndImplicitParents() {
        #expect(Self.globs.lineage(of: "application/xhtml+xml") == ["application/xhtml+xml", "application/xml", "text/plain"])
        #expect(Self.globs.lineage(of: "text/xml") == ["application/xml", "text/plain"])
        #expect(Self.globs.lineage(of: "text/markdown") == ["text/markdown", "text/plain"])
        #expect(Self.globs.lineage(of: "inode/directory") == ["inode/directory"])
    }
}

/// Case-sensitive globs as `update-mime-database` writes them: each twice,
/// with `:cs` and again without flags for readers that know none. The first
/// line of a pattern for a type counts (as in GLib); read as two, `*.C` took
/// every `*.c` file for C++ (issue 25).
@Suite struct CaseSensitiveGlobTests {
    static let written = MimeGlobs(directories: [(globs2: """
        50:text/x-c++src:*.C:cs
        50:text/x-c++src:*.C
        50:text/x-csrc:*.c:cs
        50:text/x-csrc:*.c
        50:application/x-core:core:cs
        50:application/x-core:core
        50:text/x-genie:*.gs:cs
        50:text/x-genie:*.gs
        """, aliases: nil, subclasses: nil)])

    @Test(arguments: [
        ("main.c", "text/x-csrc"), ("main.C", "text/x-c++src"), ("core", "application/x-core"), ("CORE", nil),
        ("x.gs", "text/x-genie"), ("X.GS", nil),
    ] as [(String, String?)])
    func asWritten(name: String, type: String?) {
        #expect(Self.written.type(ofFileNamed: name) == type, "\(name)")
    }
}
