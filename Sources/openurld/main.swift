import CommandLineOptions
import Desktop
import DispatcherAPI
import Glibc
import OpenURLDaemon
import Spawn

// Wiring only: parse, pick the fallback, run.
let environment = currentEnvironment()

switch Result(catching: { () throws(UsageError) in try DaemonOptions.parse(Array(currentArguments().dropFirst())) }) {
case .failure(let error):
    _ = error.report(by: "openurld").withCString { write(2, $0, strlen($0)) }
    exit(2)
case .success(.help):
    print(DaemonOptions.help)
case .success(.version):
    print("openurld \(DispatcherAPI.version)")
case .success(.run(let options)):
    let logger = Logger.standardError(threshold: options.verbose ? .debug : .info)
    let reaper = ChildReaper()
    let opener = { @Sendable connection in
        DesktopURLOpener(environment: environment, connection: connection, reaper: reaper, warn: { logger.warning($0) }, inform: { logger.info($0) })
    }
    exit(await Daemon.run(options, environment: environment, opener: opener, logger: logger, reaper: reaper))
}
