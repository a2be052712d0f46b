/// Bytes read from a bus socket, cut into whole messages: each message's
/// fixed header says how long it is, so a message is taken once all of it
/// has come and no earlier.
struct MessageStream {
    private var buffer: [UInt8] = []
    /// Where the first byte not yet taken is.
    private var start = 0

    /// Adds bytes as they were read.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start == buffer.count { empty() }
        // As typed bytes, which are copied at once: a raw buffer was appended byte by byte.
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// The largest buffer kept once empty: one huge message (the bus allows
    /// 128 MiB) must not keep its memory for the connection's lifetime.
    static let keptCapacity = 1 << 20

    /// The memory the stream holds on to, in bytes.
    var heldCapacity: Int { buffer.capacity }

    private mutating func empty() {
        buffer.removeAll(keepingCapacity: buffer.capacity <= Self.keptCapacity)
        start = 0
    }

    /// The next whole message, or `nil` until all of it has come. A message
    /// of a type the specification does not define is skipped, as it asks.
    /// - Throws: `InvalidArgs` when the bytes cannot start a message (an
    ///   endianness byte that is neither, lengths past the limits): the
    ///   stream is corrupt and cannot be read further.
    mutating func next() throws(DBusError) -> [UInt8]? {
        let available = buffer.count - start
        guard available >= WireFormat.fixedHeaderSize else { return nil }
        let start = start
        let measured = buffer.withUnsafeBytes { all in
            Result { () throws(DBusError) -> Int in
                try WireFormat.messageLength(UnsafeRawBufferPointer(rebasing: all[start..<start + WireFormat.fixedHeaderSize]))
            }
        }
        let length = try measured.get()
        guard available >= length else { return nil }
        let defined = Message.Kind(wireCode: buffer[start + 1]) != nil
        if start == 0, length == buffer.count {
            // What was read is this message and nothing more, the usual case
            // for a call: it takes the buffer, and the stream starts again
            // with none, so that the next read gets a buffer of its own size.
            // Keeping "its capacity" made every later message's buffer as
            // large as the largest read the connection ever had (the
            // message took the kept buffer whole): too large for malloc's
            // fast path, and held as long as the message lived.
            let message = buffer
            buffer = []
            if defined { return message }
            return nil
        }
        let message = defined ? Array(buffer[start..<start + length]) : nil
        self.start += length
        if self.start == buffer.count {
            empty()
        } else if self.start > 1 << 16 {
            buffer.removeSubrange(0..<self.start)
            self.start = 0
        }
        if let message { return message }
        return try next()
    }
}
