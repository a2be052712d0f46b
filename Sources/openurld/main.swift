import Glibc

// The daemon is wired up once the routing core exists; say so rather than pretend.
let message = "openurld: not built yet\n"
_ = message.withCString { write(2, $0, strlen($0)) }
exit(1)
