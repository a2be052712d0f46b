/// A D-Bus error: a name a program can match on and a message a person can act on.
///
/// Every failure in this module is one of these, whether it came from a peer
/// (an error reply), from the bus, from the socket, or from validating input
/// before it was sent. That keeps one vocabulary from the wire to the command line.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error name, e.g. `org.freedesktop.DBus.Error.InvalidArgs`.
    public let name: ErrorName
    /// A human-readable explanation.
    public let message: String

    /// Creates an error with the given name and message.
    public init(_ name: ErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }
}

extension DBusError {
    /// `org.freedesktop.DBus.Error.Failed`: a generic failure.
    public static func failed(_ message: String) -> DBusError { DBusError(.failed, message) }
    /// `org.freedesktop.DBus.Error.InvalidArgs`: the arguments were wrong.
    public static func invalidArgs(_ message: String) -> DBusError { DBusError(.invalidArgs, message) }
    /// `org.freedesktop.DBus.Error.NoReply`: no reply arrived before the deadline.
    public static func noReply(_ message: String) -> DBusError { DBusError(.noReply, message) }
    /// `org.freedesktop.DBus.Error.Disconnected`: the connection is closed.
    public static func disconnected(_ message: String) -> DBusError { DBusError(.disconnected, message) }
    /// `org.freedesktop.DBus.Error.NoMemory`: memory or descriptors ran out.
    static let noMemory = DBusError(.noMemory, "out of memory")
}

extension ErrorName {
    /// A generic failure, when no other name fits.
    public static let failed = ErrorName(trusted: "org.freedesktop.DBus.Error.Failed")
    /// The arguments were wrong: a bad type, value or count.
    public static let invalidArgs = ErrorName(trusted: "org.freedesktop.DBus.Error.InvalidArgs")
    /// No reply came in time, or the peer left before replying.
    public static let noReply = ErrorName(trusted: "org.freedesktop.DBus.Error.NoReply")
    /// An operation timed out.
    public static let timeout = ErrorName(trusted: "org.freedesktop.DBus.Error.Timeout")
    /// The connection is closed.
    public static let disconnected = ErrorName(trusted: "org.freedesktop.DBus.Error.Disconnected")
    /// Memory ran out.
    public static let noMemory = ErrorName(trusted: "org.freedesktop.DBus.Error.NoMemory")
    /// No object is exported at the path called.
    public static let unknownObject = ErrorName(trusted: "org.freedesktop.DBus.Error.UnknownObject")
    /// The object has no such interface.
    public static let unknownInterface = ErrorName(trusted: "org.freedesktop.DBus.Error.UnknownInterface")
    /// The interface has no such method.
    public static let unknownMethod = ErrorName(trusted: "org.freedesktop.DBus.Error.UnknownMethod")
    /// The interface has no such property.
    public static let unknownProperty = ErrorName(trusted: "org.freedesktop.DBus.Error.UnknownProperty")
    /// The property cannot be set.
    public static let propertyReadOnly = ErrorName(trusted: "org.freedesktop.DBus.Error.PropertyReadOnly")
    /// The bus or the peer refused the caller.
    public static let accessDenied = ErrorName(trusted: "org.freedesktop.DBus.Error.AccessDenied")
    /// A quota was reached (the bus's, or the peer's own).
    public static let limitsExceeded = ErrorName(trusted: "org.freedesktop.DBus.Error.LimitsExceeded")
    /// The name has no owner.
    public static let nameHasNoOwner = ErrorName(trusted: "org.freedesktop.DBus.Error.NameHasNoOwner")
    /// A bus address could not be parsed or names nothing this module can reach.
    public static let badAddress = ErrorName(trusted: "org.freedesktop.DBus.Error.BadAddress")
    /// The bus socket does not exist.
    public static let fileNotFound = ErrorName(trusted: "org.freedesktop.DBus.Error.FileNotFound")
    /// Nothing listens on the bus socket.
    public static let noServer = ErrorName(trusted: "org.freedesktop.DBus.Error.NoServer")
    /// The bus refused to authenticate this process.
    public static let authFailed = ErrorName(trusted: "org.freedesktop.DBus.Error.AuthFailed")
    /// No program owns the name, and none can be activated for it.
    public static let serviceUnknown = ErrorName(trusted: "org.freedesktop.DBus.Error.ServiceUnknown")
}
