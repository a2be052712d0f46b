/// `text` as XML character data or a quoted attribute value: `&`, `<`, `>`,
/// `"` and `'` as entities. For introspection XML, and for the body markup of
/// desktop notifications (a subset of XML), where peer text must stay text.
public func xmlEscaped(_ text: String) -> String {
    var escaped = ""
    for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&apos;"
        default: escaped.append(character)
        }
    }
    return escaped
}
