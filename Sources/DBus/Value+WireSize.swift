extension Value {
    /// At least as many bytes as the value takes in a message body: each
    /// item with the most alignment padding it could need. Cheap enough to
    /// check every reply with.
    public var wireSizeUpperBound: Int {
        switch self {
        // Padding to the type's alignment, then the value.
        case .byte: 1
        case .int16, .uint16: 1 + 2
        case .boolean, .int32, .uint32: 3 + 4
        case .int64, .uint64, .double: 7 + 8
        case .string(let text): 3 + 4 + text.utf8.count + 1
        case .objectPath(let path): 3 + 4 + path.rawValue.utf8.count + 1
        case .signature(let signature): 1 + signature.description.utf8.count + 1
        case .variant(let inner): 1 + inner.type.signatureLength + 1 + 7 + inner.wireSizeUpperBound
        case .array(_, let items): 3 + 4 + 7 + items.reduce(0) { $0 + $1.wireSizeUpperBound }
        case .dictionary(_, _, let entries): 3 + 4 + 7 + entries.reduce(0) { $0 + 7 + $1.key.wireSizeUpperBound + $1.value.wireSizeUpperBound }
        case .structure(let fields): 7 + fields.reduce(0) { $0 + $1.wireSizeUpperBound }
        }
    }
}

extension Message {
    /// The largest body this process sends. dbus-daemon's default
    /// `max_message_size` is 32 MiB on the session and system buses, and it
    /// disconnects a peer that sends more: a reply that could pass this is
    /// answered with `LimitsExceeded` instead, and the connection stays.
    public static let maximumBodySize = 24 << 20
}
