import Glibc

extension String {
    /// Whether this string's UTF-8 is exactly the NUL-terminated `text`:
    /// a header field compared where libdbus holds it, without making a
    /// `String` of it (an allocation and a UTF-8 check for every call routed).
    /// Bytes, not `==`, which takes canonically equivalent text as equal.
    func equals(cString text: UnsafePointer<CChar>) -> Bool {
        // strlen stops at the terminator, so a string holding a NUL is never
        // equal and nothing past the terminator is read.
        let length = strlen(text)
        return text.withMemoryRebound(to: UInt8.self, capacity: length) { field in
            utf8.withContiguousStorageIfAvailable { bytes in
                bytes.count == length && (length == 0 || memcmp(bytes.baseAddress!, field, length) == 0)
            } ?? utf8.elementsEqual(UnsafeBufferPointer(start: field, count: length))
        }
    }
}
