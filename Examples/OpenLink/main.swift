// Opens a link the way the desktop wants it opened.
//
//   swift run open-link https://example.com
import FoundationEssentials
import Glibc
import OpenURL

guard CommandLine.arguments.count == 2, let url = URL(string: CommandLine.arguments[1]) else {
    print("usage: open-link URL")
    exit(2)
}

// The same call a SwiftUI view makes with @Environment(\.openURL).
let openURL = OpenURLAction.system
if await openURL(url) {
    print("opened \(url)")
} else {
    // The detailed form says why: the outcome, or the dispatcher's error
    // (an invalid URL, say), or why it could not be reached.
    do {
        let outcome = try await OpenURLAction.open(url, options: OpenURLOptions())
        print("not opened: \(outcome.outcome?.rawValue ?? "unknown outcome")\(outcome.message.map { ": " + $0 } ?? "")")
    } catch {
        print("not opened: \(OpenURLAction.describe(error))")
    }
    exit(1)
}
