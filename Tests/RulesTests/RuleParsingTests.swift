import Foundation
import Routing
import Rules
import Testing
import XDG

struct RuleParsingTests {
    @Test func aValidFileGivesEveryField() throws {
        let text = """
            # comment
            [Rule work]
            Schemes=https;HTTP
            Hosts=*.example.com;example.org
            Paths=/a/**
            Match=^https://(?<host>[^/]+)/
            Callers=org.gnome.*
            StripQuery=utm_*;fbclid
            Rewrite=https://mirror/${host}/$0
            Open=firefox.desktop
            Priority=-5
            Enabled=true
            Comment=for work
            Comment[de]=für die Arbeit

            [Rule second]
            Exec=mpv --title "a b" %u
            """
        let (rules, diagnostics) = RuleParser.parse(text, path: "/x/10-a.rules")
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        try #require(rules.count == 2)
        let work = rules[0]
        #expect(work.name == "work")
        #expect(work.source == RuleSource(path: "/x/10-a.rules", line: 2))
        #expect(work.spec.schemes == ["http", "https"])
        #expect(work.spec.hosts.map(\.description) == ["*.example.com", "example.org"])
        #expect(work.spec.paths.map(\.description) == ["/a/**"])
        #expect(work.spec.priority == -5)
        #expect(work.pattern?.pattern == "^https://(?<host>[^/]+)/")
        #expect(work.callers.map(\.description) == ["org.gnome.*"])
        #expect(work.stripQuery.map(\.description) == ["utm_*", "fbclid"])
        #expect(work.rewrite?.description == "https://mirror/${host}/$0")
        #expect(work.action == .open(.application("firefox.desktop")))
        #expect(work.isEnabled)
        #expect(rules[1].action == .exec(commandLine: "mpv --title \"a b\" %u"))
        #expect(rules[1].spec.schemes == ["*"])
        #expect(rules[1].spec.priority == 0)
    }

    /// Each mistake is reported at its line, its rule is skipped, and the
    /// file's other rules still load.
    @Test func mistakesAreReportedAtTheirLineAndOnlyTheirRuleIsSkipped() {
        let text = """
            [Rule ok-before]
            Result=handled
            [Rule unknown-key]
            Hosts=a.example
            Stripquery=utm_*
            [Rule bad-regex]
            Match=(a
            Result=discarded
            [Rule bad-template]
            Match=(x)
            Rewrite=https://$2
            [Rule two-actions]
            Open=a.desktop
            Exec=a %u
            [Rule no-effect]
            Hosts=a.example
            [Rule exec-without-url]
            Exec=mpv
            [Rule bad-priority]
            Priority=high
            Result=handled
            [Rule bad-result]
            Result=maybe
            [Rule backreference]
            Match=(a)\\1
            Result=handled
            [Rule syntax-error]
            Result=handled
            this line is not an entry
            [Rule twice]
            Result=handled
            Result=discarded
            [NotARule]
            Result=handled
            [Rule bad-open]
            Open=firefox
            [Rule bad-host]
            Hosts=a/b
            Result=handled
            [Rule bad-enabled]
            Enabled=perhaps
            Result=handled
            [Rule ok-after]
            Result=discarded
            """
        let (rules, diagnostics) = RuleParser.parse(text, path: "f.rules")
        #expect(rules.map(\.name) == ["ok-before", "ok-after"])
        let expected: [(Int, String)] = [
            (5, "unknown key 'Stripquery'"),
            (7, "Match=: at offset 0: unmatched '('"),
            (11, "'$2' refers to a group Match= does not have (it has 1)"),
            (14, "only one of Open=, Exec=, Result= and Ask="),
            (15, "does nothing"),
            (18, "Exec=: it has no %u"),
            (20, "Priority= must be a whole number"),
            (23, "Result= must be handled, discarded, systemAction or default, not 'maybe'"),
            (25, "backreferences are not supported"),
            (29, "expected Key=Value"),
            (32, "Result= is given twice (first on line 31)"),
            (33, "unknown group [NotARule]"),
            (36, "Open= takes a target such as firefox.desktop"),
            (38, "host pattern 'a/b'"),
            (41, "Enabled= must be true or false"),
        ]
        #expect(diagnostics.count == expected.count, "\(diagnostics.map(\.description).joined(separator: "\n"))")
        for ((line, reason), diagnostic) in zip(expected, diagnostics) {
            #expect(diagnostic.source.line == line, "\(diagnostic)")
            #expect(diagnostic.reason.contains(reason), "\(diagnostic)")
            #expect(diagnostic.description.hasPrefix("f.rules:\(line): "))
        }
    }

    @Test func userFilesOverrideSystemFilesOfTheSameNameAndNamesSetTheOrder() throws {
        let root = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let user = root + "/config/openurld/rules.d"
        let system = root + "/etc/openurld/rules.d"
        let vendor = root + "/usr/openurld/rules.d"
        for directory in [user, system, vendor] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        func rule(_ name: String) -> String { "[Rule \(name)]\nResult=handled\n" }
        try rule("user-20").write(toFile: user + "/20-b.rules", atomically: true, encoding: .utf8)
        try rule("system-20").write(toFile: system + "/20-b.rules", atomically: true, encoding: .utf8)
        try rule("system-10").write(toFile: system + "/10-a.rules", atomically: true, encoding: .utf8)
        try rule("vendor-10").write(toFile: vendor + "/10-a.rules", atomically: true, encoding: .utf8)
        try rule("vendor-30").write(toFile: vendor + "/30-c.rules", atomically: true, encoding: .utf8)
        try rule("masked").write(toFile: vendor + "/40-masked.rules", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: user + "/40-masked.rules", withDestinationPath: "/dev/null")
        try rule("ignored").write(toFile: user + "/50-not-rules.conf", atomically: true, encoding: .utf8)
        try rule("hidden").write(toFile: user + "/.60-hidden.rules", atomically: true, encoding: .utf8)

        let load = RuleFiles.load(from: [user, system, vendor, root + "/missing/openurld/rules.d"])
        #expect(load.diagnostics.isEmpty, "\(load.diagnostics)")
        #expect(load.rules.map(\.name) == ["system-10", "user-20", "vendor-30"])
        #expect(load.files == [system + "/10-a.rules", user + "/20-b.rules", vendor + "/30-c.rules", user + "/40-masked.rules"])

        let base = BaseDirectories(environment: ["HOME": "/h", "XDG_CONFIG_DIRS": "/etc/xdg:/opt/xdg/"])
        #expect(RuleFiles.directories(base) == ["/h/.config/openurld/rules.d", "/etc/xdg/openurld/rules.d", "/opt/xdg/openurld/rules.d"])
    }

    @Test func anUnreadableFileIsReportedAndTheOthersLoad() throws {
        let root = try makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/20-dir.rules", withIntermediateDirectories: true)
        try "[Rule a]\nResult=handled\n".write(toFile: root + "/10-a.rules", atomically: true, encoding: .utf8)
        try String(repeating: "# padding\n", count: 120_000).write(toFile: root + "/30-big.rules", atomically: true, encoding: .utf8)
        let load = RuleFiles.load(from: [root])
        #expect(load.rules.map(\.name) == ["a"])
        #expect(load.diagnostics.map(\.source.path) == [root + "/20-dir.rules", root + "/30-big.rules"])
        #expect(load.diagnostics.allSatisfy { $0.source.line == 0 && $0.reason.contains("cannot read") })
    }
}

func makeDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.path + "/openurld-rules-\(UInt64.random(in: 0...UInt64.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
