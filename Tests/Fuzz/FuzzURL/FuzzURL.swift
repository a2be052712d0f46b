// libFuzzer target: URL validation, host extraction and handler matching.
// Built only with OPENURLD_FUZZ=1 (see scripts/fuzz): libFuzzer supplies main.
import Routing

private let specs: [HandlerSpec] = [
    try! HandlerSpec(schemes: ["https", "http"], hosts: ["example.com", "*.example.com", "[::1]"], paths: ["/a/*/b", "/**.pdf"]),
    try! HandlerSpec(schemes: ["*"], paths: ["**"]),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let url = try? ValidatedURL(text) else { return 0 }
    // Forwarded byte for byte, scheme lowercased.
    precondition(url.text.utf8.count == text.utf8.count)
    precondition(url.text.utf8.dropFirst(url.scheme.utf8.count).elementsEqual(text.utf8.dropFirst(url.scheme.utf8.count)))
    precondition(url.scheme == url.scheme.lowercased())
    // Validation is stable: the forwarded text validates to itself.
    precondition((try? ValidatedURL(url.text)) == url)
    for spec in specs { _ = spec.matches(url) }
    _ = url.redacted
    return 0
}
