import Testing
@testable import XDG

@Suite struct KeyFileTests {
    @Test func parsesGroupsEntriesAndComments() throws {
        let file = try KeyFile(parsing: """
            # leading comment
            [Default Applications]
            x-scheme-handler/https=firefox.desktop;chromium.desktop;

            [Added Associations]\r
            x-scheme-handler/mailto = thunderbird.desktop
            Name[fr]=Courrier
            x-scheme-handler/https=later.desktop
            """)
        #expect(file.groups.map(\.name) == ["Default Applications", "Added Associations"])
        #expect(file.group("Added Associations")?.value("x-scheme-handler/mailto") == "thunderbird.desktop")
        #expect(file.group("Added Associations")?.value("Name[fr]") == "Courrier")
        #expect(file.group("Default Applications")?.entries.first?.line == 3)
    }

    @Test(arguments: [
        ("key=value\n", "line 1: an entry must follow a [Group] header"),
        ("[Group\nk=v", "line 1: a group header must look like [Name]"),
        ("[G]\njust text", "line 2: expected Key=Value, a [Group] or a # comment"),
        ("[G]\n=v", "line 2: an entry has an empty key"),
        ("[]\n", "line 1: a group header must look like [Name]"),
        ("[G]\nok=1\n[a]b]\n", "line 3: a group name may not contain '[', ']' or control characters"),
    ])
    func reportsLineNumbers(_ text: String, _ message: String) {
        let error = #expect(throws: KeyFile.ParseError.self) { try KeyFile(parsing: text) }
        #expect(error?.description == message)
    }

    @Test func stringsAndLists() {
        #expect(KeyFile.unescape("a\\sb\\nc\\td\\\\e\\x") == "a b\nc\td\\e\\x")
        #expect(KeyFile.list("a.desktop;b.desktop;") == ["a.desktop", "b.desktop"])
        #expect(KeyFile.list("a\\;b;c") == ["a;b", "c"])
        #expect(KeyFile.list(";;") == [])
        #expect(KeyFile.boolean("true") == true && KeyFile.boolean("0") == false && KeyFile.boolean("yes") == nil)
    }

    @Test(arguments: [
        ["a.desktop"], ["a;b.desktop", "c\\d", "line\nbreak", " lead", "tab\tx", "cr\ry"], [], ["\u{0}x"],
    ])
    func listValuesReadBackExactly(_ items: [String]) throws {
        let file = try KeyFile(parsing: "[G]\nk=" + KeyFile.listValue(items) + "\n")
        #expect(KeyFile.list(file.group("G")!.value("k")!) == items.filter { !$0.isEmpty })
    }

    /// Found by scripts/fuzz: escaped characters in existing defaults were
    /// written back unescaped, and an escaped newline broke the file.
    @Test func theEditorKeepsEscapedEntriesIntact() throws {
        let original = "[Default Applications]\nx-scheme-handler/https=odd\\nname.desktop;semi\\;colon.desktop;\n"
        var editor = try MimeAppsEditor(original)
        editor.makeDefault("org.openurld.Dispatcher1.desktop", for: "x-scheme-handler/https", previous: nil)
        #expect(editor.text == "[Default Applications]\nx-scheme-handler/https=org.openurld.Dispatcher1.desktop;odd\\nname.desktop;semi\\;colon.desktop;\n")
        editor.removeDefault("org.openurld.Dispatcher1.desktop", for: "x-scheme-handler/https")
        #expect(editor.text == original)
    }

    @Test func baseDirectoriesFollowTheSpec() {
        let defaults = BaseDirectories(environment: ["HOME": "/home/u"])
        #expect(defaults.configHome == "/home/u/.config")
        #expect(defaults.configDirs == ["/etc/xdg"])
        #expect(defaults.dataHome == "/home/u/.local/share")
        // After the spec's list, the sandbox exports it lacks (Flatpak's, the user's first, and snapd's).
        #expect(defaults.dataDirs == ["/usr/local/share", "/usr/share", "/home/u/.local/share/flatpak/exports/share",
                                      "/var/lib/flatpak/exports/share", "/var/lib/snapd/desktop"])
        let custom = BaseDirectories(environment: [
            "HOME": "/home/u", "XDG_CONFIG_HOME": "relative/path", "XDG_DATA_DIRS": "relative:/opt/share::/usr/share/",
            "XDG_CONFIG_DIRS": "", "XDG_DATA_HOME": "/d", "OPENURLD_EXTRA_DATA_DIRS": "/var/lib/snapd/desktop:relative",
        ])
        #expect(custom.configHome == "/home/u/.config")
        #expect(custom.configDirs == ["/etc/xdg"])
        #expect(custom.dataDirs == ["/opt/share", "/usr/share/", "/d/flatpak/exports/share", "/var/lib/snapd/desktop"])
        #expect(custom.applicationDirectories == ["/d/applications", "/opt/share/applications", "/usr/share/applications",
                                                  "/d/flatpak/exports/share/applications", "/var/lib/snapd/desktop/applications"])
        // Already in XDG_DATA_DIRS (as Flatpak's login script puts them first): not added again.
        let flatpak = BaseDirectories(environment: [
            "HOME": "/h", "XDG_DATA_DIRS": "/h/.local/share/flatpak/exports/share:/var/lib/flatpak/exports/share/:/usr/share",
            "OPENURLD_EXTRA_DATA_DIRS": "/var/lib/flatpak/exports/share",
        ])
        #expect(flatpak.dataDirs == ["/h/.local/share/flatpak/exports/share", "/var/lib/flatpak/exports/share/", "/usr/share"])
    }

    @Test func desktopNamesNeverLeaveTheDirectory() {
        let names = MimeAppsList.fileNames(currentDesktop: "GNOME:../../tmp/x:KDE:..:.hidden").map(\.name)
        #expect(names == ["gnome-mimeapps.list", "kde-mimeapps.list", "mimeapps.list"])
    }
}
