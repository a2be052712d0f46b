// A handler that sends twitter.com links to a nitter instance and blocks a
// tracker, for as long as it runs.
//
//   swift run link-rewriter            # then, elsewhere: openurl https://twitter.com/swiftlang
import Dispatch
import FoundationEssentials
import Glibc
import OpenURL

let rewrite = try await OpenURLAction.register(
    URLHandlerMatch(schemes: ["https", "http"], hosts: ["twitter.com", "*.twitter.com", "x.com"], name: "twitter to nitter")
) { url, context in
    print("\(context.callerAppID.isEmpty ? context.caller : context.callerAppID) opened \(url)")
    var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    components?.scheme = "https"
    components?.host = "nitter.net"
    return components?.url.map { .systemAction($0) } ?? .systemAction
}

let block = try await OpenURLAction.register(
    URLHandlerMatch(schemes: ["*"], hosts: ["*.doubleclick.net"], priority: 100, name: "tracker blocker")
) { _, _ in .discarded }

print("handlers \(rewrite.id.map(String.init) ?? "?") and \(block.id.map(String.init) ?? "?") registered; Ctrl-C to stop")
signal(SIGINT, SIG_IGN)
let stop = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
await withCheckedContinuation { continuation in
    stop.setEventHandler { continuation.resume() }
    stop.resume()
}
await rewrite.cancel()
await block.cancel()
