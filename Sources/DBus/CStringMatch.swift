import Glibc

extension String {
    /// Whether this string's UTF-8 is exactly the NUL-terminated `text`:
    /// a header field compared where libdbus holds it, without making a
    /// `String` of it (an allocation and a UTF-8 check for every call routed).
    func equals(cString text: UnsafePointer<CChar>) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            // strlen stops at the terminator, so a string holding a NUL is
            // never equal and nothing past the terminator is read.
            guard strlen(text) == bytes.count else { return false }
            guard let start = bytes.baseAddress else { return true }
            return memcmp(start, text, bytes.count) == 0
        }
        return compared ?? (self == String(cString: text))
    }
}
