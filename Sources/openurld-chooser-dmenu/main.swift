import ChooserService
import Glibc
import Spawn

// Wiring only (DmenuMain is the program).
exit(await DmenuMain.run(Array(currentArguments().dropFirst()), environment: currentEnvironment()))
