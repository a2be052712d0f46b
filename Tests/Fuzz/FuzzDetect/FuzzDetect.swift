// libFuzzer target: the link detector on arbitrary text (built by scripts/fuzz).
import LinkDetection

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDetect(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let bytes = Array(text.utf8)
    let links = LinkDetector().links(in: text)
    var end = 0
    for link in links {
        precondition(link.offset >= end, "links overlap or are out of order")
        precondition(link.length > 0 && link.offset + link.length <= bytes.count, "a range outside the text")
        // Ranges fall on character boundaries: no continuation byte starts or follows them.
        precondition(bytes[link.offset] & 0xC0 != 0x80, "a range starts inside a character")
        precondition(link.offset + link.length == bytes.count || bytes[link.offset + link.length] & 0xC0 != 0x80, "a range ends inside a character")
        precondition(!link.url.isEmpty && !link.url.contains(where: \.isWhitespace), "an empty URL or one with white space")
        end = link.offset + link.length
    }
    // Asking for fewer kinds gives a subset, unchanged.
    let some = LinkDetector(kinds: [.web, .phone]).links(in: text)
    precondition(some == links.filter { $0.kind == .web || $0.kind == .phone }, "restricting kinds changed the links")
    return 0
}
