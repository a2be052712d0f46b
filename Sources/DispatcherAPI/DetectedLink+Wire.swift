import DBus
import Routing

extension DetectedLink {
    /// The type of one `DetectLinks` entry: UTF-8 offset and length, kind, URL.
    public static let type = DBusType.structure([.uint32, .uint32, .string, .string])

    /// The link as one `(uuss)` entry of the `DetectLinks` reply.
    public var value: Value {
        .structure([.uint32(UInt32(clamping: offset)), .uint32(UInt32(clamping: length)), .string(kind.rawValue), .string(url)])
    }

    /// Reads one `(uuss)` entry; `nil` when it has another shape. A kind this
    /// client does not know (a newer daemon's) reads as `other`, so that adding
    /// a kind does not break older clients.
    public init?(_ value: Value) {
        guard case .structure(let fields) = value, fields.count == 4, case .uint32(let offset) = fields[0],
              case .uint32(let length) = fields[1], case .string(let kind) = fields[2], case .string(let url) = fields[3]
        else { return nil }
        self.init(kind: Kind(rawValue: kind) ?? .other, url: url, offset: Int(offset), length: Int(length))
    }
}
