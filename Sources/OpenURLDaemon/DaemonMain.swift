import CommandLineOptions
import Desktop
import DispatcherAPI
import Glibc

/// The `openurld` program: parse, pick the fallback, run. One definition for
/// the `openurld` executable and the multi-call binary the packages install.
public enum DaemonMain {
    /// Runs `openurld` with `arguments` (without the program name).
    /// - Returns: the exit status.
    public static func run(_ arguments: [String], environment: [String: String]) async -> Int32 {
        switch Result(catching: { () throws(UsageError) in try DaemonOptions.parse(arguments) }) {
        case .failure(let error):
            _ = error.report(by: "openurld").withCString { write(2, $0, strlen($0)) }
            return 2
        case .success(.help):
            print(DaemonOptions.help)
            return 0
        case .success(.version):
            print("openurld \(DispatcherAPI.version)")
            return 0
        case .success(.run(let options)):
            // The line of each URL is kept back briefly once the bus loop runs (`LineBatch`).
            let logger = Logger.standardError(threshold: options.verbose ? .debug : .info, batch: LineBatch())
            let reaper = ChildReaper()
            let opener = { @Sendable connection in
                DesktopURLOpener(environment: environment, connection: connection, reaper: reaper, warn: { logger.warning($0) }, inform: { logger.info($0) })
            }
            return await Daemon.run(options, environment: environment, opener: opener, logger: logger, reaper: reaper)
        }
    }
}
