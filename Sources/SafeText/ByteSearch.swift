extension String {
    /// Whether the string's UTF-8 holds `byte`, read in place from a native
    /// string's contiguous bytes, eight at a time (stepping through the UTF-8
    /// view cost 30 instructions a byte). No libc: the Embedded front
    /// compiles this too.
    public func containsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { hasByte(byte, in: $0) } ?? utf8.contains(byte)
    }
}

/// Whether `bytes` hold `byte` (`String.containsByte`): each 8-byte word
/// XORed with the byte repeated has a zero byte exactly where `bytes` hold
/// it, and `(w - 0x01…01) & ~w & 0x80…80` is non-zero exactly when `w` has one.
func hasByte(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    let raw = UnsafeRawPointer(base)
    let ones: UInt64 = 0x0101_0101_0101_0101
    let pattern = UInt64(byte) &* ones
    var offset = 0
    while offset + 8 <= bytes.count {
        let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ pattern
        if (word &- ones) & ~word & (ones &<< 7) != 0 { return true }
        offset += 8
    }
    while offset < bytes.count {
        if bytes[offset] == byte { return true }
        offset += 1
    }
    return false
}
