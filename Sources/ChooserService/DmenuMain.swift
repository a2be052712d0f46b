import CommandLineOptions
import Glibc
import SafeText
import Spawn

/// The `openurld-chooser-dmenu` program: parse, pick the menu, serve. One
/// definition for its executable and the multi-call binary.
public enum DmenuMain {
    /// Runs `openurld-chooser-dmenu` with `arguments` (without the program name).
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], environment: [String: String]) async -> Int32 {
        switch Result(catching: { () throws(UsageError) in try DmenuOptions.parse(arguments) }) {
        case .failure(let error):
            _ = error.report(by: "openurld-chooser-dmenu").withCString { write(2, $0, strlen($0)) }
            return 2
        case .success(.help):
            print(DmenuOptions.help)
            return 0
        case .success(.run(let options)):
            // A menu that exits without reading its input must not take us with it.
            signal(SIGPIPE, SIG_IGN)
            let command = options.command.isEmpty
                ? DmenuOptions.knownMenus.first { findExecutable($0[0], path: environment["PATH"]) != nil } ?? []
                : options.command
            guard !command.isEmpty else {
                let message = "openurld-chooser-dmenu: no menu program given, and none of fuzzel, wofi, rofi, bemenu, dmenu is on PATH\n"
                _ = message.withCString { write(2, $0, strlen($0)) }
                return 1
            }
            let chooser = DmenuChooser(command: command, environment: environment) { problem in
                ChooserService.journalLine(3, "openurld-chooser-dmenu: " + displayable(problem))
            }
            return await ChooserService.run(
                program: "openurld-chooser-dmenu", address: options.chooser.address, environment: environment, idleExit: options.chooser.idleExit,
                log: ChooserService.journalLine
            ) { request in await chooser.choose(request.choice, within: request.answerTime()) }
        }
    }
}
