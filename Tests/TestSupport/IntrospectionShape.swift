import Foundation

/// The shape of introspection XML: per interface, its members, arguments,
/// properties and annotations, in order, without comments or layout. Two
/// documents with the same shape describe the same API.
public func introspectionShape(_ xml: String, interfaces wanted: Set<String>? = nil) -> [String: [String]] {
    var text = xml
    while let start = text.range(of: "<!--"), let end = text.range(of: "-->", range: start.upperBound..<text.endIndex) {
        text.removeSubrange(start.lowerBound..<end.upperBound)
    }
    var shapes: [String: [String]] = [:]
    var current: String?
    let tag = try! NSRegularExpression(pattern: "<(/?)(interface|method|signal|property|arg|annotation)\\b([^>]*)>")
    let attribute = try! NSRegularExpression(pattern: "(\\w+)=\"([^\"]*)\"")
    for match in tag.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
        let closing = Range(match.range(at: 1), in: text).map { !text[$0].isEmpty } ?? false
        let kind = String(text[Range(match.range(at: 2), in: text)!])
        let body = String(text[Range(match.range(at: 3), in: text)!])
        if closing {
            if kind == "interface" { current = nil }
            continue
        }
        var attributes: [String: String] = [:]
        for a in attribute.matches(in: body, range: NSRange(body.startIndex..., in: body)) {
            attributes[String(body[Range(a.range(at: 1), in: body)!])] = String(body[Range(a.range(at: 2), in: body)!])
        }
        if kind == "interface" {
            let name = attributes["name"] ?? ""
            current = wanted == nil || wanted!.contains(name) ? name : nil
            if let current { shapes[current] = [] }
            continue
        }
        guard let current else { continue }
        let line = ([kind] + ["name", "type", "direction", "access", "value"].compactMap { attributes[$0] }).joined(separator: " ")
        shapes[current]!.append(line)
    }
    return shapes
}
