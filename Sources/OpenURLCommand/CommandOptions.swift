import LinkDetection
import DispatcherAPI

/// `openurl handle`'s options: what the handler matches, and the command.
struct HandleOptions: Equatable, Sendable {
    /// The spec registered (its name defaults to the command line).
    var match = DispatcherAPI.HandlerMatch(schemes: [])
    var command: [String] = []
}

/// `openurl detect`'s options.
struct DetectOptions: Equatable, Sendable {
    var text: String?
    var json = false
    var open = false
    var kinds: [String] = []
    var region: PhoneRegion?
}
