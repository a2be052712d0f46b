import CDBus

/// One-time libdbus set-up. Every entry point into libdbus in this module
/// touches `LibDBus.ready` first, so thread support is on before any other call.
enum LibDBus {
    static let ready: Void = {
        // Without this, libdbus objects must not be shared across threads at all.
        _ = dbus_threads_init_default()
    }()

    /// Takes the name and message out of a filled-in `DBusError` and frees it.
    static func take(_ error: inout CDBus.DBusError) -> DBusError {
        defer { dbus_error_free(&error) }
        let name = error.name.map { String(cString: $0) } ?? ErrorName.failed.rawValue
        let message = error.message.map { String(cString: $0) } ?? "unknown libdbus error"
        return DBusError(ErrorName(validating: name) ?? .failed, message)
    }
}
