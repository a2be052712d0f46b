import Dispatch
import Glibc
import OpenURLCommand
import Spawn

// Wiring only. No top-level await: the concurrency runtime starts only for
// what needs it, not for --help, --version or a URL the daemon opens.
let environment = currentEnvironment()
switch OpenURLCLI.start(program: currentArguments(), environment: environment) {
case .finished(let status):
    exit(status)
case .continueAsync(let rest):
    Task { exit(await rest()) }
    dispatchMain()
}
