// libdbus's own reading and writing of message bodies, through its
// iterators: the oracle WireFormat is held to (this was the DBus module's
// coder before the module spoke to the bus itself).
import CDBus
import DBus

/// Appends `Value`s to a libdbus message body through `DBusMessageIter`.
///
/// The values must be sendable (`Value`'s rules): libdbus aborts the
/// process on some invalid input.
public enum LibdbusEncoder {
    /// Appends `values` to `message` (a `DBusMessage *`).
    public static func append(_ values: [Value], to message: OpaquePointer) throws(DBus.DBusError) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for value in values {
            guard append(value, to: &iterator) else { throw DBus.DBusError(.noMemory, "out of memory") }
        }
    }

    /// Returns false only when libdbus runs out of memory.
    private static func append(_ value: Value, to iterator: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(var v): return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_BYTE, &v) != 0
        case .boolean(let b):
            var v: dbus_bool_t = b ? 1 : 0
            return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_BOOLEAN, &v) != 0
        case .int16(var v): return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_INT16, &v) != 0
        case .uint16(var v): return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_UINT16, &v) != 0
        case .int32(var v): return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_INT32, &v) != 0
        case .uint32(var v): return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_UINT32, &v) != 0
        case .int64(var v): return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_INT64, &v) != 0
        case .uint64(var v): return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_UINT64, &v) != 0
        case .double(var v): return dbus_message_iter_append_basic(&iterator, CDBUS_TYPE_DOUBLE, &v) != 0
        case .string(let text): return appendText(text, type: CDBUS_TYPE_STRING, to: &iterator)
        case .objectPath(let path): return appendText(path.rawValue, type: CDBUS_TYPE_OBJECT_PATH, to: &iterator)
        case .signature(let sig): return appendText(sig.rawValue, type: CDBUS_TYPE_SIGNATURE, to: &iterator)
        case .variant(let inner):
            return inner.type.description.withCString { signature in
                appendContainer(CDBUS_TYPE_VARIANT, signature: signature, to: &iterator) { append(inner, to: &$0) }
            }
        case .array(let element, let items):
            return element.description.withCString { signature in
                appendContainer(CDBUS_TYPE_ARRAY, signature: signature, to: &iterator) { sub in
                    items.allSatisfy { append($0, to: &sub) }
                }
            }
        case .dictionary(let key, let valueType, let entries):
            return ("{" + key.description + valueType.description + "}").withCString { entrySignature in
                appendContainer(CDBUS_TYPE_ARRAY, signature: entrySignature, to: &iterator) { sub in
                    entries.allSatisfy { entry in
                        appendContainer(CDBUS_TYPE_DICT_ENTRY, signature: nil, to: &sub) {
                            append(entry.key, to: &$0) && append(entry.value, to: &$0)
                        }
                    }
                }
            }
        case .structure(let fields):
            return appendContainer(CDBUS_TYPE_STRUCT, signature: nil, to: &iterator) { sub in
                fields.allSatisfy { append($0, to: &sub) }
            }
        }
    }

    private static func appendText(_ text: String, type: Int32, to iterator: inout DBusMessageIter) -> Bool {
        text.withCString { pointer in
            var p: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iterator, type, &p) != 0
        }
    }

    /// Opens a container on `iterator`, fills it, and closes it with the same
    /// iterator it was opened with; abandons it if filling fails.
    private static func appendContainer(
        _ type: Int32, signature: UnsafePointer<CChar>?, to iterator: inout DBusMessageIter,
        fill: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened = dbus_message_iter_open_container(&iterator, type, signature, &sub)
        guard opened != 0 else { return false }
        guard fill(&sub) else {
            dbus_message_iter_abandon_container(&iterator, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iterator, &sub) != 0
    }
}

/// Reads a libdbus message body into `Value`s.
///
/// libdbus has validated every message it loaded against its signature, so
/// this only has to refuse what `Value` does not hold (unix fds).
public enum LibdbusDecoder {
    /// The body of `message` (a `DBusMessage *`).
    public static func decode(_ message: OpaquePointer) throws(DBus.DBusError) -> [Value] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        return try readAll(&iterator)
    }

    private static func readAll(_ iterator: inout DBusMessageIter) throws(DBus.DBusError) -> [Value] {
        var values: [Value] = []
        while dbus_message_iter_get_arg_type(&iterator) != CDBUS_TYPE_INVALID {
            // Room for a message's usual few arguments at the first: one
            // allocation instead of one per argument as the array grows.
            if values.isEmpty { values.reserveCapacity(4) }
            values.append(try read(&iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func basic<T: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ initial: T) -> T {
        var v = initial
        dbus_message_iter_get_basic(&iterator, &v)
        return v
    }

    private static func text(_ iterator: inout DBusMessageIter) -> String {
        var p: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iterator, &p)
        return p.map { String(cString: $0) } ?? ""
    }

    private static func read(_ iterator: inout DBusMessageIter) throws(DBus.DBusError) -> Value {
        switch dbus_message_iter_get_arg_type(&iterator) {
        case CDBUS_TYPE_BYTE: return .byte(basic(&iterator, UInt8(0)))
        case CDBUS_TYPE_BOOLEAN: return .boolean(basic(&iterator, dbus_bool_t(0)) != 0)
        case CDBUS_TYPE_INT16: return .int16(basic(&iterator, Int16(0)))
        case CDBUS_TYPE_UINT16: return .uint16(basic(&iterator, UInt16(0)))
        case CDBUS_TYPE_INT32: return .int32(basic(&iterator, Int32(0)))
        case CDBUS_TYPE_UINT32: return .uint32(basic(&iterator, UInt32(0)))
        case CDBUS_TYPE_INT64: return .int64(basic(&iterator, Int64(0)))
        case CDBUS_TYPE_UINT64: return .uint64(basic(&iterator, UInt64(0)))
        case CDBUS_TYPE_DOUBLE: return .double(basic(&iterator, Double(0)))
        case CDBUS_TYPE_STRING: return .string(text(&iterator))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(ObjectPath(trusted: text(&iterator)))
        case CDBUS_TYPE_SIGNATURE: return .signature(try Signature(text(&iterator)))
        case CDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .variant(try read(&sub))
        case CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .structure(try readAll(&sub))
        case CDBUS_TYPE_ARRAY:
            let type = try currentType(&iterator)
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            switch type {
            case .dictionary(let key, let value):
                var entries: [DictionaryEntry] = []
                while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
                    var entry = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &entry)
                    let k = try read(&entry)
                    dbus_message_iter_next(&entry)
                    entries.append(DictionaryEntry(key: k, value: try read(&entry)))
                    dbus_message_iter_next(&sub)
                }
                return .dictionary(key: key, value: value, entries)
            case .array(let element):
                if element == .unixFD { throw .invalidArgs("unix file descriptors are not supported") }
                return .array(element, try readAll(&sub))
            default:
                throw .invalidArgs("malformed array of type '\(type)'")
            }
        case CDBUS_TYPE_UNIX_FD:
            throw .invalidArgs("unix file descriptors are not supported")
        case let code:
            throw .invalidArgs("unsupported D-Bus type code \(code)")
        }
    }

    /// The complete type of the value under the iterator.
    private static func currentType(_ iterator: inout DBusMessageIter) throws(DBus.DBusError) -> DBusType {
        guard let raw = dbus_message_iter_get_signature(&iterator) else { throw DBus.DBusError(.noMemory, "out of memory") }
        defer { dbus_free(raw) }
        let signature = try Signature(String(cString: raw))
        guard signature.types.count == 1 else { throw .invalidArgs("malformed signature '\(signature)'") }
        return signature.types[0]
    }
}
