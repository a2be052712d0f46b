import CDBus
import Glibc

// busbench's relay, line for line in Swift over libdbus, built as the daemon
// is: no DBus module, no tasks, no `Value`s, no dispatch queue. It splits
// the daemon's distance from the C relay in two: what Swift itself costs on
// this path (this program against the C relay), and what the project's
// D-Bus layer costs (bench/DBusLayer's forwarding against this program).
//
//   swift-relay ADDRESS NAME HANDLER
//
// Owns NAME; for each org.openurld.Dispatcher1.OpenURL(s URL), calls
// org.openurld.Handler1.HandleURL(s URL, a{sv} context) at /h0 on the
// connection owning HANDLER, with the context openurld sends, and answers
// (b) when it does, true for "handled". One thread reads every message
// waiting and answers what it can, as the C relay does. Where the C relay
// reads arguments with dbus_message_get_args and appends with
// dbus_message_append_args (variadic: Swift cannot call them), this reads
// and appends through an iterator, which libdbus's own variadic functions do
// underneath with more checks.

func fail(_ message: String) -> Never {
    let line = "swift-relay: " + message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else { fail("usage: swift-relay ADDRESS NAME HANDLER") }

var error = DBusError()
dbus_error_init(&error)
guard let connection = dbus_connection_open_private(arguments[1], &error), dbus_bus_register(connection, &error) != 0 else {
    fail(error.message.map { String(cString: $0) } ?? "cannot connect")
}
guard dbus_bus_request_name(connection, arguments[2], UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
    == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
else { fail("cannot own \(arguments[2])") }

/// The handler's unique name, once: openurld calls handlers by it.
let handler: String = {
    let query = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner")!
    var args = DBusMessageIter()
    dbus_message_iter_init_append(query, &args)
    arguments[3].withCString { name in
        var pointer: UnsafePointer<CChar>? = name
        _ = dbus_message_iter_append_basic(&args, CDBUS_TYPE_STRING, &pointer)
    }
    guard let owner = dbus_connection_send_with_reply_and_block(connection, query, 5000, nil),
          let unique = firstString(of: owner)
    else { fail("nobody owns \(arguments[3])") }
    dbus_message_unref(owner)
    dbus_message_unref(query)
    return String(cString: unique)
}()

/// The first argument of `message` when it is a string; libdbus keeps it as long as the message.
func firstString(of message: OpaquePointer) -> UnsafePointer<CChar>? {
    var iterator = DBusMessageIter()
    guard dbus_message_iter_init(message, &iterator) != 0, dbus_message_iter_get_arg_type(&iterator) == CDBUS_TYPE_STRING else { return nil }
    var value: UnsafePointer<CChar>?
    dbus_message_iter_get_basic(&iterator, &value)
    return value
}

/// Appends `{key: <value>}` to an open `a{sv}`.
func appendStringEntry(_ dictionary: inout DBusMessageIter, _ key: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>) {
    var entry = DBusMessageIter(), variant = DBusMessageIter()
    var key: UnsafePointer<CChar>? = key, value: UnsafePointer<CChar>? = value
    dbus_message_iter_open_container(&dictionary, CDBUS_TYPE_DICT_ENTRY, nil, &entry)
    dbus_message_iter_append_basic(&entry, CDBUS_TYPE_STRING, &key)
    dbus_message_iter_open_container(&entry, CDBUS_TYPE_VARIANT, "s", &variant)
    dbus_message_iter_append_basic(&variant, CDBUS_TYPE_STRING, &value)
    dbus_message_iter_close_container(&entry, &variant)
    dbus_message_iter_close_container(&dictionary, &entry)
}

/// Calls in flight, by serial (16 clients need 16), as the C relay keeps them.
let slots = 4096
var slotSerials = [UInt32](repeating: 0, count: slots)
var slotCalls = [OpaquePointer?](repeating: nil, count: slots)

/// "" where the C relay writes "", for a missing URL or sender.
let empty = UnsafePointer(strdup("")!)

_ = write(1, "ready\n", 6)
handler.withCString { handler in
    while dbus_connection_read_write(connection, -1) != 0 {
        while let message = dbus_connection_pop_message(connection) {
            let type = dbus_message_get_type(message)
            if type == CDBUS_MESSAGE_TYPE_METHOD_CALL, dbus_message_is_method_call(message, "org.openurld.Dispatcher1", "OpenURL") != 0 {
                let url = firstString(of: message) ?? empty
                let caller = dbus_message_get_sender(message) ?? empty
                let call = dbus_message_new_method_call(handler, "/h0", "org.openurld.Handler1", "HandleURL")!
                var args = DBusMessageIter(), dictionary = DBusMessageIter()
                var text: UnsafePointer<CChar>? = url
                dbus_message_iter_init_append(call, &args)
                dbus_message_iter_append_basic(&args, CDBUS_TYPE_STRING, &text)
                dbus_message_iter_open_container(&args, CDBUS_TYPE_ARRAY, "{sv}", &dictionary)
                appendStringEntry(&dictionary, "caller", caller)
                appendStringEntry(&dictionary, "caller-app-id", empty)
                appendStringEntry(&dictionary, "original-url", url)
                dbus_message_iter_close_container(&args, &dictionary)
                var serial: UInt32 = 0
                dbus_connection_send(connection, call, &serial)
                dbus_message_unref(call)
                slotSerials[Int(serial) % slots] = serial
                slotCalls[Int(serial) % slots] = message  // keeps the reference
                continue
            }
            if type == CDBUS_MESSAGE_TYPE_METHOD_RETURN || type == CDBUS_MESSAGE_TYPE_ERROR {
                let serial = dbus_message_get_reply_serial(message)
                let slot = Int(serial) % slots
                if slotSerials[slot] == serial, let original = slotCalls[slot] {
                    slotCalls[slot] = nil
                    var handled: dbus_bool_t = 0
                    if type == CDBUS_MESSAGE_TYPE_METHOD_RETURN, let result = firstString(of: message), strcmp(result, "handled") == 0 { handled = 1 }
                    let reply = dbus_message_new_method_return(original)!
                    var args = DBusMessageIter()
                    dbus_message_iter_init_append(reply, &args)
                    dbus_message_iter_append_basic(&args, CDBUS_TYPE_BOOLEAN, &handled)
                    dbus_connection_send(connection, reply, nil)
                    dbus_message_unref(reply)
                    dbus_message_unref(original)
                }
            }
            dbus_message_unref(message)
        }
    }
}
