// The least a Swift program can do to make `openurl URL`'s call: join the
// session bus (connect, authenticate, Hello), send one OpenURL, wait for the
// reply, exit 0 when accepted. Built like the shipped binaries (optimised,
// Swift runtime linked statically), it measures what Swift's own start-up
// adds to dbus-send's, so that openurl's figure can be read against both.
import CDBus
import Glibc

guard CommandLine.arguments.count == 2 else {
    fputs("usage: swift-client URL\n", stderr)
    exit(2)
}
var error = DBusError()
dbus_error_init(&error)
guard let connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error) else { exit(3) }
guard let call = dbus_message_new_method_call(
    "org.openurld.Dispatcher1", "/org/openurld/Dispatcher1", "org.openurld.Dispatcher1", "OpenURL")
else { exit(3) }
CommandLine.arguments[1].withCString { text in
    var arguments = DBusMessageIter()
    dbus_message_iter_init_append(call, &arguments)
    var pointer: UnsafePointer<CChar>? = text
    _ = dbus_message_iter_append_basic(&arguments, CDBUS_TYPE_STRING, &pointer)
}
guard let reply = dbus_connection_send_with_reply_and_block(connection, call, 25_000, &error) else { exit(3) }
var results = DBusMessageIter()
var accepted: dbus_bool_t = 0
if dbus_message_iter_init(reply, &results) != 0, dbus_message_iter_get_arg_type(&results) == CDBUS_TYPE_BOOLEAN {
    dbus_message_iter_get_basic(&results, &accepted)
}
exit(accepted != 0 ? 0 : 1)
