import CDBus

/// One-time libdbus set-up. Every entry point into libdbus in this module
/// touches `LibDBus.ready` first, so thread support is on before any other call.
enum LibDBus {
    static let ready: Void = {
        // Without this, libdbus objects must not be shared across threads at all.
        _ = dbus_threads_init_default()
    }()

    /// Opens a private connection to `address` (not yet registered with the
    /// bus) that never calls `exit()` when the bus goes away.
    static func openPrivate(_ address: String) throws(DBusError) -> OpaquePointer {
        _ = ready
        guard !address.utf8.contains(0) else { throw .invalidArgs("bus address contains a NUL character") }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        // Connecting a local socket does not block; authentication happens later.
        guard let raw = dbus_connection_open_private(address, &error) else { throw take(&error) }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        return raw
    }

    /// Takes the name and message out of a filled-in `DBusError` and frees it.
    static func take(_ error: inout CDBus.DBusError) -> DBusError {
        defer { dbus_error_free(&error) }
        let name = error.name.map { String(cString: $0) } ?? ErrorName.failed.rawValue
        let message = error.message.map { String(cString: $0) } ?? "unknown libdbus error"
        return DBusError(ErrorName(validating: name) ?? .failed, message)
    }
}
