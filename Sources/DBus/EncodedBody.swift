import SafeText

/// A message body written in the wire format as it is made, for a call sent
/// with every URL (openurld's `HandleURL`): no `Value` tree is built,
/// checked, walked to write and freed for it. `Message.methodCall(…, body:)`
/// sends the bytes as they are.
///
///     let body = try EncodedBody(signature: "sa{sv}") { body throws(DBusError) in
///         try body.append(url)
///         try body.appendStringVariants { entries throws(DBusError) in
///             try entries.append("caller", caller)
///         }
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
            try expect(.string) { if case .string = $0 { true } else { false } }
            try wire.appendChecked(text)
        }

        /// A dictionary of strings held in variants (`a{sv}`), whose entries
        /// `write` appends in order. Each is written as it is appended: no
        /// list of them is made first.
        public mutating func appendStringVariants(_ write: (inout StringVariants) throws(DBusError) -> Void) throws(DBusError) {
            try expect(.dictionary(key: .string, value: .variant)) { if case .dictionary(.string, .variant) = $0 { true } else { false } }
            let array = wire.beginArray(alignment: 8)
            try withUnsafeMutablePointer(to: &wire) { wire throws(DBusError) in
                var entries = StringVariants(wire: wire)
                try write(&entries)
            }
            try wire.endArray(array)
        }

        /// The entries of a dictionary of string variants, being written:
        /// given to `appendStringVariants`'s closure only, which can neither
        /// copy it nor keep it.
        public struct StringVariants: ~Copyable {
            /// The body's writer, which `appendStringVariants` lends for its closure's length.
            private let wire: UnsafeMutablePointer<WireWriter>

            fileprivate init(wire: UnsafeMutablePointer<WireWriter>) { self.wire = wire }

            /// The entry `key` → `value` (held in a variant).
            public mutating func append(_ key: String, _ value: String) throws(DBusError) {
                wire.pointee.pad(to: 8)
                try wire.pointee.appendChecked(key)
                wire.pointee.appendSignatureCode(UInt8(ascii: "s"))
                try wire.pointee.appendChecked(value)
            }
        }

        /// Counts the next type of the signature written, which `matches`
        /// tells is `type` (matched in place: an `a{sv}` made to compare
        /// with was an allocation, an equality walked through its boxes and
        /// a release, for every body).
        private mutating func expect(_ type: @autoclosure () -> DBusType, _ matches: (DBusType) -> Bool) throws(DBusError) {
            guard next < types.count else { throw .invalidArgs("cannot write a \(type()) past the body's signature") }
            guard matches(types[next]) else { throw .invalidArgs("cannot write a \(type()) where the body's signature has a \(types[next])") }
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
