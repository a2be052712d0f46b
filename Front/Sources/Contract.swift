// The names the front speaks, spelled here because Embedded Swift cannot
// compile DispatcherAPI (it stands on the DBus module's types).
// `FrontTests.theFrontsNamesAreTheContracts` reads this file and checks
// every value against DispatcherAPI, OptionKey and the D-Bus names the DBus
// module uses, so that the two cannot drift.

enum Contract {
    static let busName = "org.openurld.Dispatcher1"
    static let objectPath = "/org/openurld/Dispatcher1"
    static let dispatcherInterface = "org.openurld.Dispatcher1"
    static let openURLWithOptions = "OpenURLWithOptions"
    /// `OpenURLWithOptions`' reply.
    static let replySignature = "ba{sv}"

    // Option keys.
    static let activationTokenKey = "activation-token"
    static let askKey = "ask"
    static let notifyFailureKey = "notify-failure"

    // Result keys.
    static let outcomeKey = "outcome"
    static let urlKey = "url"
    static let handlerKey = "handler"
    static let ruleKey = "rule"
    static let applicationKey = "application"
    static let messageKey = "message"

    /// How long one call may wait, in milliseconds (`DispatcherAPI.longestWalk`).
    static let longestWalkMilliseconds: Int32 = 1_825_000
    /// How long connecting may take, in milliseconds (the full CLI's `BlockingConnection.session` timeout).
    static let connectMilliseconds: Int32 = 5_000

    // The bus driver.
    static let bus = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"
    static let busInterface = "org.freedesktop.DBus"

    // Errors.
    static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    static let noReply = "org.freedesktop.DBus.Error.NoReply"
    static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    static let fileNotFound = "org.freedesktop.DBus.Error.FileNotFound"
    static let failed = "org.freedesktop.DBus.Error.Failed"
    static let spawnPrefix = "org.freedesktop.DBus.Error.Spawn."
    static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
}
