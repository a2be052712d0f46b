import Glibc
import OpenURLCommand
import Spawn

// Wiring only.
let environment = Dictionary(
    currentEnvironment().compactMap { entry -> (String, String)? in
        guard let equals = entry.firstIndex(of: "=") else { return nil }
        return (String(entry[..<equals]), String(entry[entry.index(after: equals)...]))
    }, uniquingKeysWith: { first, _ in first })
exit(await OpenURLCLI.run(Array(CommandLine.arguments.dropFirst()), environment: environment))
