import ChooserService
import Dispatch
import Glibc
import OpenURLCommand
import OpenURLDaemon
import SafeText
import Spawn

// The Swift programs of the openurld package in one binary, chosen by the
// name it runs under (argv[0]), as busybox is: the Swift runtime is linked in
// once instead of once per program. `make install` links openurld,
// openurld-chooser-dmenu and the full openurl (under libexec) to it.
// Wiring only: each program is its module's.
let arguments = currentArguments()
let environment = currentEnvironment()
let name = programName(arguments)

/// Runs `body` on the concurrency runtime and exits with its status (no
/// top-level await, so that `openurl` starts the runtime only when it must).
func exit(after body: @escaping @Sendable () async -> Int32) -> Never {
    Task { exit(await body()) }
    dispatchMain()
}

switch name {
case "openurld":
    exit { await DaemonMain.run(Array(arguments.dropFirst()), environment: environment) }
case "openurld-chooser-dmenu":
    exit { await DmenuMain.run(Array(arguments.dropFirst()), environment: environment) }
case "openurl", "openurl-report-failure":
    switch OpenURLCLI.start(program: arguments, environment: environment) {
    case .finished(let status): exit(status)
    case .continueAsync(let rest): exit(after: rest)
    }
default:
    let message = "openurld-multicall: run it as openurld, openurl or openurld-chooser-dmenu (a link of that name), not as '\(displayable(name))'\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
