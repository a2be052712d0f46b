import Routing

/// Removes the query parameters whose names match `globs` from `url`,
/// keeping every other parameter exactly as written and in its order.
///
/// The query is the text between the first `?` and the first `#` after it;
/// parameters are separated by `&`, and a parameter's name is the text
/// before its first `=`, percent-decoded for matching only. When no
/// parameter is left, the `?` goes too. The fragment is kept.
public func strippingQuery(_ url: String, parameters globs: [PathGlob]) -> String {
    guard !globs.isEmpty else { return url }
    let bytes = url.utf8
    let fragmentStart = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
    guard let questionMark = bytes[..<fragmentStart].firstIndex(of: UInt8(ascii: "?")) else { return url }
    let query = url[url.index(after: questionMark)..<fragmentStart]
    let parameters = query.split(separator: "&", omittingEmptySubsequences: false)
    let kept = parameters.filter { parameter in
        let name = parameter.prefix { $0 != "=" }
        let decoded = percentDecoded(name)
        return !globs.contains { $0.matches(decoded) }
    }
    if kept.count == parameters.count { return url }
    let prefix = url[..<questionMark]
    let fragment = url[fragmentStart...]
    let remaining = kept.joined(separator: "&")
    return remaining.isEmpty ? String(prefix + fragment) : prefix + "?" + remaining + fragment
}

/// `%XX` decoded where the bytes make valid UTF-8; anything else kept as written.
func percentDecoded(_ text: Substring) -> String {
    guard text.contains("%") else { return String(text) }
    var bytes: [UInt8] = []
    var input = Array(text.utf8)[...]
    while let byte = input.popFirst() {
        if byte == UInt8(ascii: "%"), input.count >= 2,
           let high = hexValue(input[input.startIndex]), let low = hexValue(input[input.startIndex + 1]) {
            bytes.append(high << 4 | low)
            input = input.dropFirst(2)
        } else {
            bytes.append(byte)
        }
    }
    return String(validating: bytes, as: UTF8.self) ?? String(text)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
