import CommandLineOptions
import Foundation
import Testing
import TestSupport

@testable import OpenURLCommand

/// `openurl`'s commands are one table (`Subcommand.all`): each entry is
/// parsed, helped, listed, suggested and documented from it. This walks the
/// table, so that a command added there is checked without a test written
/// for it; and checks that every program's options, as its `--help` lists
/// them from its own table, are in its man page.
@Suite(.timeLimit(.minutes(1)))
struct CommandTableTests {
    static let names = Subcommand.all.map(\.name)

    @Test(arguments: names)
    func eachCommandHasItsHelpAndItsOptions(_ name: String) async throws {
        let command = try #require(Subcommand.named(name))
        // The fast front hands on a first word spelled like a command, and reads any other as the plain open's.
        #expect(OpenCommandLine.looksLikeACommand(name), "\(name)")
        let help = try await run([Binaries.openurl, name, "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("Usage: openurl"), "\(name): \(help.stderr)")
        #expect(help.stdout.contains("Exit status") || name == "help", "\(name)")
        for option in command.options {
            for spelling in option.names { #expect(help.stdout.contains(spelling), "\(name) --help does not list \(spelling)") }
        }
        let main = try await run([Binaries.openurl, "--help"])
        #expect(main.stdout.contains("\n  " + command.synopsis), "openurl --help does not list \(command.synopsis)")
    }

    @Test(arguments: names)
    func eachCommandRefusesAnUnknownOptionAndPointsToItsHelp(_ name: String) async throws {
        let command = try #require(Subcommand.named(name))
        let arguments = [name, "--no-such-option"] + (command.words == .commandAfterDashes ? ["--", "true"] : [])
        let result = try await run([Binaries.openurl] + arguments)
        #expect(result.status == 2, "\(name)")
        #expect(result.stderr == "openurl: unknown option '--no-such-option'\nTry 'openurl \(name) --help' for more information.\n",
                "\(name): \(result.stderr)")
    }

    @Test(arguments: names)
    func aTypoOfEachCommandIsCaughtAndNamed(_ name: String) async throws {
        var letters = Array(name)
        letters.swapAt(letters.count - 1, letters.count - 2)
        let typo = String(letters)
        let result = try await run([Binaries.openurl, typo, "https://example.com/"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("openurl: unknown command '\(typo)' (did you mean '\(name)'?)"), "\(result.stderr)")
    }

    @Test(arguments: names)
    func eachCommandIsInTheManPage(_ name: String) throws {
        let page = try String(contentsOfFile: Binaries.repository + "/docs/man/openurl.1", encoding: .utf8)
        let command = try #require(Subcommand.named(name))
        #expect(page.contains(".B " + Self.roff(name)) || page.contains("openurl " + Self.roff(name)), "openurl.1 has no \(name)")
        for option in command.options {
            for spelling in option.names { #expect(page.contains(Self.roff(spelling)), "openurl.1 does not mention \(name)'s \(spelling)") }
        }
    }

    /// Every program's options, as its `--help` prints them, are in its man page.
    @Test(arguments: [
        (Binaries.openurl, "openurl.1"), (Binaries.openurld, "openurld.1"), (Binaries.dmenuChooser, "openurld-chooser-dmenu.1"),
        (Binaries.chooser, "openurld-chooser.1"),
    ])
    func everyOptionOfEveryProgramIsInItsManPage(_ program: String, _ manPage: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: program) else { return }  // the GTK chooser, where GTK is missing
        let help = try await run([program, "--help"])
        let page = try String(contentsOfFile: Binaries.repository + "/docs/man/" + manPage, encoding: .utf8)
        let options = Self.options(listedIn: help.stdout)
        #expect(!options.isEmpty, "\(program) --help lists no options")
        for option in options where option != "--" { #expect(page.contains(Self.roff(option)), "\(manPage) does not mention \(option)") }
    }

    /// The option spellings at the start of the rows of `help`'s "Options:" list.
    static func options(listedIn help: String) -> [String] {
        guard let start = help.range(of: "\nOptions:\n") else { return [] }
        let block = help[start.upperBound...].prefix { _ in true }.components(separatedBy: "\n\n")[0]
        return block.split(separator: "\n").flatMap { line -> [String] in
            guard line.hasPrefix("  -") else { return [] }
            let label = line.dropFirst(2).components(separatedBy: "  ")[0]
            return label.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
        }
    }

    /// `text` as roff writes it: each `-` as `\-`.
    static func roff(_ text: String) -> String { text.replacingOccurrences(of: "-", with: "\\-") }
}
