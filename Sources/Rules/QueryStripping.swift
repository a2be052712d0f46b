import Routing

/// Removes the query parameters whose names match `globs` from `url`,
/// keeping every other parameter exactly as written and in its order.
///
/// The query is the text between the first `?` and the first `#` after it;
/// parameters are separated by `&`, and a parameter's name is the text
/// before its first `=`, percent-decoded for matching only (as written when
/// it is not valid percent-encoded UTF-8). When no
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
        let decoded = percentDecoded(name) ?? String(name)
        return !globs.contains { $0.matches(decoded) }
    }
    if kept.count == parameters.count { return url }
    let prefix = url[..<questionMark]
    let fragment = url[fragmentStart...]
    let remaining = kept.joined(separator: "&")
    return remaining.isEmpty ? String(prefix + fragment) : prefix + "?" + remaining + fragment
}
