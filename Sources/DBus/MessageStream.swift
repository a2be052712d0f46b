/// Bytes read from a bus socket, cut into whole messages: each message's
/// fixed header says how long it is, so a message is taken once all of it
/// has come and no earlier.
struct MessageStream {
    private var buffer: [UInt8] = []
    /// Where the first byte not yet taken is.
    private var start = 0

    /// Adds bytes as they were read.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, or `nil` until all of it has come.
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
        let message = Array(buffer[start..<start + length])
        self.start += length
        if self.start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            self.start = 0
        } else if self.start > 1 << 16 {
            buffer.removeSubrange(0..<self.start)
            self.start = 0
        }
        return message
    }
}
