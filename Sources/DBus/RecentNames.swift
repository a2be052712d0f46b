import Glibc

/// The names a connection's last messages carried in their headers (paths,
/// interfaces, members, bus names), each kept with the rule it passed: a
/// message naming one of them again gets the same `String`, with no
/// allocation and no check run again. A run of calls to one object from one
/// caller names the same five things every time. Body signatures are kept
/// the same way, parsed: such a run carries the same one or two. And whole
/// headers, with their fields' bytes: such a run's calls have the same
/// fields byte for byte, and the replies to them differ only in the reply
/// serial, so a header is mostly read by one comparison of bytes
/// (`WireReader.readHeader`).
///
/// Used on one thread (a connection's loop), like the stream it reads.
struct RecentNames {
    /// Which rule a name passed.
    enum Kind: UInt8 {
        case objectPath, interfaceName, memberName, busName

        var rule: (UnsafeBufferPointer<UInt8>) -> String? {
            switch self {
            case .objectPath: NameRules.objectPath
            case .interfaceName: NameRules.interfaceName
            case .memberName: NameRules.memberName
            case .busName: NameRules.busName
            }
        }
    }

    /// A kept name, with its length beside it: a name of another length is
    /// passed over without touching its `String` (a retain, a release and a
    /// closure each, for the dozen names a header is compared with).
    private struct Entry {
        let kind: Kind
        let length: Int
        let name: String
    }

    /// A header read lately, kept with the bytes of its fields: a message
    /// whose fields are the same bytes (its reply serial apart: a reply's
    /// only field that changes from one to the next) has the same header.
    struct KnownHeader {
        let kind: Message.Kind
        let bigEndian: Bool
        /// The header fields' bytes, from offset 16 to their end.
        let fields: [UInt8]
        /// Where in `fields` the REPLY_SERIAL field's number is, if it has one.
        let replySerialAt: Int?
        /// Whether a SIGNATURE field is among them (a body needs one).
        let hasSignature: Bool
        let header: MessageHeader

        init(kind: Message.Kind, bigEndian: Bool, fields: UnsafeRawBufferPointer, replySerialAt: Int?, hasSignature: Bool, header: MessageHeader) {
            self.kind = kind
            self.bigEndian = bigEndian
            self.fields = Array(fields)
            self.replySerialAt = replySerialAt
            self.hasSignature = hasSignature
            self.header = header
        }

        /// Whether `bytes` are these fields, the reply serial's four bytes apart.
        func matches(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard bytes.count == fields.count, let other = bytes.baseAddress else { return false }
            return fields.withUnsafeBytes { kept in
                guard let base = kept.baseAddress else { return false }
                guard let at = replySerialAt else { return memcmp(base, other, fields.count) == 0 }
                let after = at + 4
                return memcmp(base, other, at) == 0 && memcmp(base + after, other + after, fields.count - after) == 0
            }
        }
    }

    /// Headers whose fields take more bytes than this are not kept: a
    /// peer's long names must not make every later message's check long.
    static let longestKeptFields = 256

    private var entries: [Entry] = []
    private var headers: [KnownHeader] = []
    private var nextHeader = 0
    private var signatures: [(length: Int, signature: Signature)] = []
    private var nextSignature = 0
    /// The entry replaced next, once all are taken.
    private var next = 0
    /// How many names are kept.
    let capacity: Int

    /// Keeps the last `capacity` names (16: a few callers' and peers' worth).
    init(capacity: Int = 16) { self.capacity = capacity }

    /// Keeps nothing: for a message read once, on its own, where keeping
    /// would cost allocations and save nothing.
    static var none: RecentNames { RecentNames(capacity: 0) }

    /// The name of `kind` whose bytes are `bytes`, if one was kept.
    func find(_ bytes: UnsafeBufferPointer<UInt8>, kind: Kind) -> String? {
        for index in entries.indices where entries[index].length == bytes.count && entries[index].kind == kind {
            if Self.same(entries[index].name, bytes) { return entries[index].name }
        }
        return nil
    }

    /// The header kept for fields of `kind` whose bytes are `fields`, if one
    /// was, with where in them its reply serial is and whether they have a
    /// SIGNATURE field. Only the header is copied: returning the whole kept
    /// entry copied it with its fields' bytes, then the header again out of
    /// it, seven names retained and released each time.
    func header(kind: Message.Kind, bigEndian: Bool, fields: UnsafeRawBufferPointer)
        -> (header: MessageHeader, replySerialAt: Int?, hasSignature: Bool)?
    {
        for index in headers.indices where headers[index].fields.count == fields.count {
            if headers[index].kind == kind, headers[index].bigEndian == bigEndian, headers[index].matches(fields) {
                return (headers[index].header, headers[index].replySerialAt, headers[index].hasSignature)
            }
        }
        return nil
    }

    /// Keeps `header`, which was read from its fields and found valid, in place of the oldest.
    mutating func keep(_ header: KnownHeader) {
        let most = capacity / 4
        guard most > 0, header.fields.count <= Self.longestKeptFields else { return }
        if headers.count < most {
            headers.append(header)
        } else {
            headers[nextHeader] = header
            nextHeader = (nextHeader + 1) % most
        }
    }

    /// The signature whose text is `bytes`, if one was kept.
    func findSignature(_ bytes: UnsafeBufferPointer<UInt8>) -> Signature? {
        for index in signatures.indices where signatures[index].length == bytes.count {
            if Self.same(signatures[index].signature.rawValue, bytes) { return signatures[index].signature }
        }
        return nil
    }

    /// Keeps `signature`, which was parsed and found valid, in place of the oldest.
    mutating func keep(_ signature: Signature) {
        let most = capacity / 4
        if signatures.count < most {
            signatures.append((signature.rawValue.utf8.count, signature))
        } else if most > 0 {
            signatures[nextSignature] = (signature.rawValue.utf8.count, signature)
            nextSignature = (nextSignature + 1) % most
        }
    }

    private static func same(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { kept in
            kept.count == bytes.count && (bytes.isEmpty || memcmp(kept.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        } ?? false
    }

    /// Keeps `name`, which passed `kind`'s rule, in place of the oldest.
    mutating func keep(_ name: String, kind: Kind) {
        if entries.count < capacity {
            entries.append(Entry(kind: kind, length: name.utf8.count, name: name))
        } else if capacity > 0 {
            entries[next] = Entry(kind: kind, length: name.utf8.count, name: name)
            next = (next + 1) % capacity
        }
    }
}
