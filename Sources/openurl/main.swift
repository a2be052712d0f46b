import Glibc
import OpenURLCommand
import Spawn

// Wiring only.
let environment = currentEnvironment()
exit(await OpenURLCLI.run(Array(CommandLine.arguments.dropFirst()), environment: environment))
