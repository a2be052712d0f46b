import CDBus
import Routing

/// `OpenURLWithOptions(s url, a{sv} options)`, as `DispatcherAPI.openURLArguments` writes it.
enum Request {
    static func openURL(_ url: String, activationToken: String?, ask: Bool, notifyFailure: Bool) -> OpaquePointer {
        let message = dbus_message_new_method_call(Contract.busName, Contract.objectPath, Contract.dispatcherInterface, Contract.openURLWithOptions)!
        var arguments = DBusMessageIter()
        dbus_message_iter_init_append(message, &arguments)
        appendString(url, to: &arguments)
        var options = DBusMessageIter()
        _ = dbus_message_iter_open_container(&arguments, CDBUS_TYPE_ARRAY, "{sv}", &options)
        if let activationToken, !activationToken.isEmpty { entry(Contract.activationTokenKey, string: activationToken, in: &options) }
        if ask { entry(Contract.askKey, true, in: &options) }
        if notifyFailure { entry(Contract.notifyFailureKey, true, in: &options) }
        _ = dbus_message_iter_close_container(&arguments, &options)
        return message
    }

    private static func appendString(_ text: String, to iterator: inout DBusMessageIter) {
        text.withCString { pointer in
            var value: UnsafePointer<CChar>? = pointer
            _ = dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_STRING, &value)
        }
    }

    private static func entry(_ key: String, string: String, in options: inout DBusMessageIter) {
        withEntry(key, signature: "s", in: &options) { appendString(string, to: &$0) }
    }

    private static func entry(_ key: String, _ flag: Bool, in options: inout DBusMessageIter) {
        withEntry(key, signature: "b", in: &options) { variant in
            var value: dbus_bool_t = flag ? 1 : 0
            _ = dbus_message_iter_append_basic(&variant, CDBUS_TYPE_BOOLEAN, &value)
        }
    }

    private static func withEntry(_ key: String, signature: String, in options: inout DBusMessageIter, _ body: (inout DBusMessageIter) -> Void) {
        var entry = DBusMessageIter()
        _ = dbus_message_iter_open_container(&options, CDBUS_TYPE_DICT_ENTRY, nil, &entry)
        appendString(key, to: &entry)
        var variant = DBusMessageIter()
        _ = dbus_message_iter_open_container(&entry, CDBUS_TYPE_VARIANT, signature, &variant)
        body(&variant)
        _ = dbus_message_iter_close_container(&entry, &variant)
        _ = dbus_message_iter_close_container(&options, &entry)
    }
}

/// `OpenURLWithOptions`' `(ba{sv})` reply, read as `OpenURLOutcome(reply:requested:)`
/// reads it: a value of an unexpected type inside a variant counts as absent;
/// a reply of another signature cannot be read at all.
enum Reply {
    /// - Returns: the outcome, or `nil` with the signature it had instead.
    static func outcome(of reply: OpaquePointer, requested: String) -> (OpenURLOutcome?, signature: String) {
        let signature = dbus_message_get_signature(reply).map { String(cString: $0) } ?? ""
        guard signature == Contract.replySignature else { return (nil, signature) }
        var arguments = DBusMessageIter()
        _ = dbus_message_iter_init(reply, &arguments)
        var accepted: dbus_bool_t = 0
        dbus_message_iter_get_basic(&arguments, &accepted)
        _ = dbus_message_iter_next(&arguments)
        var entries = DBusMessageIter()
        dbus_message_iter_recurse(&arguments, &entries)
        var outcome: Outcome?, finalURL: String?, handler: UInt32?, rule: String?, application: String?, message: String?
        while dbus_message_iter_get_arg_type(&entries) == CDBUS_TYPE_DICT_ENTRY {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&entries, &entry)
            var keyPointer: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&entry, &keyPointer)
            let key = keyPointer.map { String(cString: $0) } ?? ""
            _ = dbus_message_iter_next(&entry)
            var variant = DBusMessageIter()
            dbus_message_iter_recurse(&entry, &variant)
            switch key {
            case Contract.outcomeKey: outcome = string(&variant).flatMap { Outcome(rawValue: $0) }
            case Contract.urlKey: finalURL = string(&variant)
            case Contract.handlerKey: handler = uint32(&variant)
            case Contract.ruleKey: rule = string(&variant)
            case Contract.applicationKey: application = string(&variant)
            case Contract.messageKey: message = string(&variant)
            default: break
            }
            _ = dbus_message_iter_next(&entries)
        }
        return (OpenURLOutcome(accepted: accepted != 0, outcome: outcome, finalURL: finalURL ?? requested, handler: handler,
                               rule: rule, application: application, message: message), signature)
    }

    private static func string(_ variant: inout DBusMessageIter) -> String? {
        guard dbus_message_iter_get_arg_type(&variant) == CDBUS_TYPE_STRING else { return nil }
        var value: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&variant, &value)
        return value.map { String(cString: $0) }
    }

    private static func uint32(_ variant: inout DBusMessageIter) -> UInt32? {
        guard dbus_message_iter_get_arg_type(&variant) == CDBUS_TYPE_UINT32 else { return nil }
        var value: UInt32 = 0
        dbus_message_iter_get_basic(&variant, &value)
        return value
    }
}
