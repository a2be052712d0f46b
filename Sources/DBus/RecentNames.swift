import Glibc

/// The names a connection's last messages carried in their headers (paths,
/// interfaces, members, bus names), each kept with the rule it passed: a
/// message naming one of them again gets the same `String`, with no
/// allocation and no check run again. A run of calls to one object from one
/// caller names the same five things every time. Body signatures are kept
/// the same way, parsed: such a run carries the same one or two.
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

    private var entries: [Entry] = []
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
