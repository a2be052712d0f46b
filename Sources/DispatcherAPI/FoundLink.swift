import DBus

extension DispatcherAPI {
    /// A link `DetectLinks` found: its `(uuss)` entry, UTF-8 offset and
    /// length, kind (`web`, `email`, `phone`, `other`) and URL.
    public struct FoundLink: Sendable, Equatable {
        public let offset: UInt32
        public let length: UInt32
        public let kind: String
        public let url: String

        public init(offset: UInt32, length: UInt32, kind: String, url: String) {
            self.offset = offset
            self.length = length
            self.kind = kind
            self.url = url
        }

        /// The type of one entry.
        public static let type = DBusType.structure([.uint32, .uint32, .string, .string])

        public var value: Value { .structure([.uint32(offset), .uint32(length), .string(kind), .string(url)]) }

        /// Reads an entry; `nil` when it is not `(uuss)`.
        public init?(_ value: Value) {
            guard case .structure(let fields) = value, fields.count == 4, case .uint32(let offset) = fields[0],
                  case .uint32(let length) = fields[1], case .string(let kind) = fields[2], case .string(let url) = fields[3]
            else { return nil }
            self.init(offset: offset, length: length, kind: kind, url: url)
        }
    }
}
