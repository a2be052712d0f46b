import Glibc

// The command-line client is not written yet; say so rather than pretend.
let message = "openurl: the command-line client is not built yet; call org.openurld.Dispatcher1 with gdbus or busctl (see README.md)\n"
_ = message.withCString { write(2, $0, strlen($0)) }
exit(3)
