/// The specification's rules for names, over a name's UTF-8 bytes: each
/// name type's `problem(with:)` applies them to its text, and `WireReader`
/// to the bytes of a message before any `String` is made of them.
/// Each returns why the name breaks its rule, or `nil`.
enum NameRules {
    static func interfaceName(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        dottedName(bytes, from: 0, allowDigitFirst: false, allowHyphen: false)
    }

    static func memberName(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > maximumNameLength { return "it is longer than 255 bytes" }
        return element(bytes, 0..<bytes.count, allowDigitFirst: false, allowHyphen: false)
    }

    static func busName(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.first == UInt8(ascii: ":") {
            if bytes.count > maximumNameLength { return "it is longer than 255 bytes" }
            return dottedName(bytes, from: 1, allowDigitFirst: true, allowHyphen: true)
        }
        return dottedName(bytes, from: 0, allowDigitFirst: false, allowHyphen: true)
    }

    static func objectPath(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.first == UInt8(ascii: "/") else { return "it does not start with '/'" }
        if bytes.count == 1 { return nil }
        if bytes[bytes.count - 1] == UInt8(ascii: "/") { return "it ends with '/'" }
        var previous = UInt8(ascii: "/")
        for index in 1..<bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") {
                if previous == UInt8(ascii: "/") { return "it contains '//'" }
            } else if !isWordByte(byte) {
                return "it contains \(describe(byte: byte)); only [A-Za-z0-9_] and '/' are allowed"
            }
            previous = byte
        }
        return nil
    }

    /// Names made of two or more `.`-separated elements, from `bytes[start]` on.
    private static func dottedName(_ bytes: UnsafeBufferPointer<UInt8>, from first: Int, allowDigitFirst: Bool, allowHyphen: Bool) -> String? {
        let end = bytes.count
        if first == end { return "it is empty" }
        if end - first > maximumNameLength { return "it is longer than 255 bytes" }
        var start = first
        var elements = 0
        while true {
            var stop = start
            while stop < end, bytes[stop] != UInt8(ascii: ".") { stop += 1 }
            elements += 1
            if stop == end, elements == 1 { return "it needs at least two elements separated by '.'" }
            if start == stop { return "it has an empty element" }
            if let problem = element(bytes, start..<stop, allowDigitFirst: allowDigitFirst, allowHyphen: allowHyphen) { return problem }
            guard stop != end else { return nil }
            start = stop + 1
        }
    }

    private static func element(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, allowDigitFirst: Bool, allowHyphen: Bool) -> String? {
        for index in range {
            let byte = bytes[index]
            if index == range.lowerBound, !allowDigitFirst, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                return "an element starts with a digit"
            }
            if isWordByte(byte) || (allowHyphen && byte == UInt8(ascii: "-")) { continue }
            return "it contains \(describe(byte: byte))"
        }
        return nil
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20  // ASCII letters without their case
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_")
    }
}

extension String {
    /// `body` given the string's UTF-8 bytes, without a copy when the string
    /// is native (nearly always).
    func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(utf8).withUnsafeBufferPointer(body)
    }
}
