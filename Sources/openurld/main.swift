import Glibc
import OpenURLDaemon
import Spawn

// Wiring only (DaemonMain is the program).
exit(await DaemonMain.run(Array(currentArguments().dropFirst()), environment: currentEnvironment()))
