import Testing
@testable import XDG

@Suite struct ExecLineTests {
    static let entry = DesktopEntry(
        id: "app.desktop", path: "/usr/share/applications/app.desktop",
        keyFile: try! KeyFile(parsing: "[Desktop Entry]\nType=Application\nName=My App\nIcon=my-icon\nExec=x\n"))!
    static let url = "https://e.com/$(id)`x`;|&'\" a%20b"

    /// Exec values (after keyfile unescaping) and the argv they give for `url`.
    static let valid: [(String, [String])] = [
        ("app %u", ["app", url]),
        ("app %U", ["app", url]),
        ("/usr/bin/app --new-window %u", ["/usr/bin/app", "--new-window", url]),
        ("app -- %u", ["app", "--", url]),
        ("app  %u", ["app", url]),
        ("app %u ", ["app", url]),
        ("\"/opt/My App/bin/app\" %u", ["/opt/My App/bin/app", url]),
        ("app \"quoted arg\" %u", ["app", "quoted arg", url]),
        ("app \"a \\\"b\\\" c\" %u", ["app", "a \"b\" c", url]),
        ("app \"\\$HOME\" %u", ["app", "$HOME", url]),
        ("app \"\\`x\\`\" %u", ["app", "`x`", url]),
        ("app \"back\\\\slash\" %u", ["app", "back\\slash", url]),
        ("app \"\" %u", ["app", "", url]),
        ("app %% %u", ["app", "%", url]),
        ("app 100%% %u", ["app", "100%", url]),
        ("app %i %u", ["app", "--icon", "my-icon", url]),
        ("app %c %u", ["app", "My App", url]),
        ("app %k %u", ["app", "/usr/share/applications/app.desktop", url]),
        ("app %d %D %n %N %v %m %u", ["app", url]),
        ("app --url=%%s %u", ["app", "--url=%s", url]),
        ("env-less.app %u", ["env-less.app", url]),
        // Characters other than ASCII are copied whole, quoted or not.
        ("/opt/Café/app \"naïve 🦊 arg\" ü %u", ["/opt/Café/app", "naïve 🦊 arg", "ü", url]),
    ]

    @Test(arguments: valid)
    func expands(_ line: String, _ argv: [String]) throws {
        #expect(try ExecLine(line).arguments(for: Self.url, entry: Self.entry) == argv)
    }

    /// Lines refused, with the reason.
    static let invalid: [(String, String)] = [
        ("", "Exec is empty"),
        ("   ", "Exec is empty"),
        ("app \"unbalanced %u", "a quote is not closed"),
        ("app \"%u\"", "field codes may not appear inside quotes ('%u')"),
        ("app %u %u", "Exec has more than one of %f, %F, %u, %U"),
        ("app %u %U", "Exec has more than one of %f, %F, %u, %U"),
        ("app %z", "'%z' in '%z' is not a field code that may appear inside an argument"),
        ("app --x=%u", "'%u' in '--x=%u' is not a field code that may appear inside an argument"),
        ("app 50%", "'50%' ends with a lone '%'"),
        ("app $(id) %u", "'$' must be inside quotes"),
        ("app `id` %u", "'`' must be inside quotes"),
        ("app a;b %u", "';' must be inside quotes"),
        ("app a|b %u", "'|' must be inside quotes"),
        ("app a&b %u", "'&' must be inside quotes"),
        ("app > out %u", "'>' must be inside quotes"),
        ("app 'x' %u", "''' must be inside quotes"),
        ("app ~/x %u", "'~' must be inside quotes"),
        ("app \"$(id)\" %u", "inside quotes, '$' must be escaped"),
        ("app \"a\\nb\" %u", "inside quotes, only \\\", \\`, \\$ and \\\\ are allowed"),
        ("app \"a\"b %u", "a quoted argument must be followed by a space"),
        ("app a\"b\" %u", "a quote must start a new argument"),
        ("FOO=bar app %u", "the program 'FOO=bar' looks like an environment assignment; Exec does not run a shell"),
        ("%u", "the program must be a name or path, not a field code"),
        ("app\nrm %u", "'\\n' must be inside quotes"),
        // Read byte by byte, as GLib does: a combining mark does not hide a reserved character.
        ("app a;\u{301}b %u", "';' must be inside quotes"),
        ("app \"a\"\u{301} %u", "a quoted argument must be followed by a space"),
    ]

    @Test(arguments: invalid)
    func refuses(_ line: String, _ reason: String) {
        #expect(throws: ExecLineError(reason)) { try ExecLine(line) }
    }

    @Test func linesThatCannotTakeAURLAreRefusedAtLaunch() throws {
        #expect(throws: ExecLineError("Exec has no %u or %U, so the URL could not be passed")) {
            try ExecLine("app").arguments(for: Self.url, entry: Self.entry)
        }
        #expect(throws: ExecLineError("the application opens files only (%f or %F), not URLs")) {
            try ExecLine("app %f").arguments(for: Self.url, entry: Self.entry)
        }
    }

    /// A `file:` URL reaches `%f` as its path and `%u` as the URL.
    @Test func filesGoToPercentFAsPaths() throws {
        #expect(try ExecLine("app %f").arguments(for: "file:///tmp/a%20b.html", localPath: "/tmp/a b.html", entry: Self.entry)
            == ["app", "/tmp/a b.html"])
        #expect(try ExecLine("app %U").arguments(for: "file:///tmp/a%20b.html", localPath: "/tmp/a b.html", entry: Self.entry)
            == ["app", "file:///tmp/a%20b.html"])
    }

    @Test func keyFileEscapesComeFirst() throws {
        // In the file: Exec=app "a\\\\b" %u → keyfile unescape → app "a\\b" %u → argv a\b.
        let file = try KeyFile(parsing: "[Desktop Entry]\nType=Application\nExec=app \"a\\\\\\\\b\" %u\n")
        let entry = try #require(DesktopEntry(id: "x.desktop", keyFile: file))
        #expect(try ExecLine(entry.exec!).arguments(for: "u:", entry: entry) == ["app", "a\\b", "u:"])
    }
}
