import SafeText

/// A message body written in the wire format as it is made, for a call sent
/// with every URL (openurld's `HandleURL`): no `Value` tree is built,
/// checked, walked to write and freed for it. `Message.methodCall(…, body:)`
/// sends the bytes as they are.
///
///     let body = try EncodedBody(signature: "sa{sv}") { body throws(DBusError) in
///         try body.append(url)
///         try body.appendStringVariants([("caller", caller)])
///     }
///
/// It is checked as it is written, as `Value.problem` checks a value: each
/// value must be the next type of `signature`, strings may not hold NUL, and
/// every type of the signature must be written. Only the types openurld
/// writes this way are offered; anything else is a `[Value]` body.
public struct EncodedBody: Sendable, Equatable {
    /// The types written, in order.
    public let signature: Signature
    /// The bytes, from an 8-aligned start: a message's body starts on one.
    let bytes: [UInt8]

    /// The body `write` writes, which must be exactly `signature`'s types.
    /// - Throws: `InvalidArgs` for a signature past 255 bytes, a value of
    ///   another type than the signature's next, a string holding NUL, or a
    ///   type left unwritten; or what `write` throws.
    public init(signature: Signature, _ write: (inout Writer) throws(DBusError) -> Void) throws(DBusError) {
        // A signature made from types (not parsed from text) is not held to the limit.
        guard signature.rawValue.utf8.count <= 255 else {
            throw .invalidArgs("cannot send values whose signature is longer than 255 bytes")
        }
        var writer = Writer(signature.types)
        try write(&writer)
        bytes = try writer.finish()
        self.signature = signature
    }

    /// Writes an `EncodedBody`'s values in order.
    public struct Writer: ~Copyable {
        private var wire = WireWriter(capacity: 256)
        private let types: [DBusType]
        private var next = 0

        fileprivate init(_ types: [DBusType]) { self.types = types }

        /// A string (`s`).
        public mutating func append(_ text: String) throws(DBusError) {
            try expect(.string)
            try wire.appendChecked(text)
        }

        /// A dictionary of strings held in variants (`a{sv}`), in the order given.
        public mutating func appendStringVariants(_ entries: [(key: String, value: String)]) throws(DBusError) {
            try expect(.dictionary(key: .string, value: .variant))
            let array = wire.beginArray(alignment: 8)
            for (key, value) in entries {
                wire.pad(to: 8)
                try wire.appendChecked(key)
                wire.appendSignatureCode(UInt8(ascii: "s"))
                try wire.appendChecked(value)
            }
            try wire.endArray(array)
        }

        private mutating func expect(_ type: DBusType) throws(DBusError) {
            guard next < types.count else { throw .invalidArgs("cannot write a \(type) past the body's signature") }
            guard types[next] == type else { throw .invalidArgs("cannot write a \(type) where the body's signature has a \(types[next])") }
            next += 1
        }

        fileprivate consuming func finish() throws(DBusError) -> [UInt8] {
            guard next == types.count else { throw .invalidArgs("the body's \(types[next]) was not written") }
            return wire.finish()
        }
    }
}

extension WireWriter {
    /// A string as `Value.problem` lets one be sent: without NUL.
    fileprivate mutating func appendChecked(_ text: String) throws(DBusError) {
        guard appendTextWithoutNUL(text) else { throw .invalidArgs("cannot send value: a string contains a NUL character") }
    }
}
