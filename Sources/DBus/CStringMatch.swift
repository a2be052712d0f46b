extension String {
    /// Whether this string's UTF-8 is exactly the NUL-terminated `text`:
    /// a header field compared where libdbus holds it, without making a
    /// `String` of it (an allocation and a UTF-8 check for every call routed).
    func equals(cString text: UnsafePointer<CChar>) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for index in bytes.indices {
                let byte = UInt8(bitPattern: text[index])
                // Never past the terminator, even if this string holds a NUL.
                guard byte != 0, byte == bytes[index] else { return false }
            }
            return text[bytes.count] == 0
        }
        return compared ?? (self == String(cString: text))
    }
}
