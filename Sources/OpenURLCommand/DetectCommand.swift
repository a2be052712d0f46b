import Glibc
import LinkDetection
import Posix

/// `openurl detect`: the links a text mentions, printed or opened.
struct DetectCommand {
    let environment: [String: String]
    let options: DetectOptions

    func run() async -> ExitStatus {
        let kinds = options.kinds.isEmpty ? Set(DetectedLink.Kind.allCases) : Set(options.kinds.compactMap(DetectedLink.Kind.init))
        let detector = LinkDetector(kinds: kinds, region: options.region)
        var links: [DetectedLink] = []
        if let text = options.text {
            links = detector.links(in: text)
        } else {
            // In blocks of whole lines: links never span lines, and input may be large.
            forEachBlock { block, offset in
                links += detector.links(in: block).map {
                    DetectedLink(kind: $0.kind, url: $0.url, offset: $0.offset + offset, length: $0.length)
                }
            }
        }
        if options.open {
            guard !links.isEmpty else { return .rejected }
            return await OpenCommand(environment: environment, verbose: false).run(links.map(\.url))
        }
        if options.json {
            Console.out(JSON.array(links.map { link in
                JSON.object([("offset", String(link.offset)), ("length", String(link.length)),
                             ("kind", JSON.string(link.kind.rawValue)), ("url", JSON.string(link.url))])
            }) + "\n")
        } else {
            Console.out(links.map { $0.url + "\n" }.joined())
        }
        return links.isEmpty ? .rejected : .accepted
    }

    /// Calls `body` with standard input in blocks of whole lines (the last
    /// may lack its newline), each with its UTF-8 offset.
    private func forEachBlock(_ body: (String, Int) -> Void) {
        var pending: [UInt8] = []
        var offset = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while let count = try? FileDescriptor.standardInput.read(into: &chunk), count > 0 {
            pending += chunk[..<count]
            guard let newline = pending.lastIndex(of: UInt8(ascii: "\n")) else { continue }
            body(String(decoding: pending[...newline], as: UTF8.self), offset)
            offset += newline + 1
            pending.removeFirst(newline + 1)
        }
        if !pending.isEmpty { body(String(decoding: pending, as: UTF8.self), offset) }
    }
}
