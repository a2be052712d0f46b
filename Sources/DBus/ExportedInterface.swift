/// An interface an object exports: its methods, properties and signals.
///
/// The same description routes incoming calls, checks their signatures and
/// generates the introspection XML, so the three cannot disagree.
public struct ExportedInterface: Sendable {
    public let name: InterfaceName
    public var methods: [ExportedMethod]
    public var properties: [ExportedProperty]
    public var signals: [ExportedSignal]

    public init(
        _ name: InterfaceName, methods: [ExportedMethod] = [], properties: [ExportedProperty] = [],
        signals: [ExportedSignal] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }
}

/// A named, typed argument, as shown in introspection.
public struct Argument: Sendable, Equatable {
    public let name: String
    public let type: DBusType
    public init(_ name: String, _ type: DBusType) {
        self.name = name
        self.type = type
    }
}

/// An incoming method call, as its handler sees it.
public struct MethodCall: Sendable {
    /// The message as received.
    public let message: Message
    /// The decoded arguments; their types match the method's declaration.
    public let arguments: [Value]
    /// The caller's unique name (always set on a bus).
    public var sender: BusName { message.sender ?? BusName(trusted: ":0.0") }
    /// The object path the call was addressed to.
    public var path: ObjectPath { message.path ?? .root }
}

/// A method an object exports.
public struct ExportedMethod: Sendable {
    /// How a method produces its reply.
    public enum Body: Sendable {
        /// Runs on the connection's loop queue, in message order; keep it short.
        case immediate(@Sendable (MethodCall) throws(DBusError) -> [Value])
        /// Runs in its own task; the reply is sent when it returns.
        case deferred(@Sendable (MethodCall) async throws(DBusError) -> [Value])
    }

    public let name: MemberName
    public let arguments: [Argument]
    public let results: [Argument]
    let body: Body

    /// A method answered immediately, on the loop queue, in the order calls arrive.
    public init(
        _ name: MemberName, arguments: [Argument] = [], results: [Argument] = [],
        handler: @escaping @Sendable (MethodCall) throws(DBusError) -> [Value]
    ) {
        self.name = name
        self.arguments = arguments
        self.results = results
        self.body = .immediate(handler)
    }

    /// A method that may wait (for other calls, for a timer) before answering.
    public init(
        _ name: MemberName, arguments: [Argument] = [], results: [Argument] = [],
        asyncHandler: @escaping @Sendable (MethodCall) async throws(DBusError) -> [Value]
    ) {
        self.name = name
        self.arguments = arguments
        self.results = results
        self.body = .deferred(asyncHandler)
    }

    var inputSignature: Signature { Signature(arguments.map(\.type)) }
    var outputSignature: Signature { Signature(results.map(\.type)) }
}

/// A read-only property an object exports through `org.freedesktop.DBus.Properties`.
public struct ExportedProperty: Sendable {
    public let name: MemberName
    public let type: DBusType
    /// Whether the value never changes while the object exists (introspected as
    /// `EmitsChangedSignal=const`), so clients may cache it.
    public let isConstant: Bool
    let read: @Sendable () -> Value

    public init(_ name: MemberName, type: DBusType, isConstant: Bool = false, read: @escaping @Sendable () -> Value) {
        self.name = name
        self.type = type
        self.isConstant = isConstant
        self.read = read
    }
}

/// A signal an object may emit, described for introspection.
public struct ExportedSignal: Sendable {
    public let name: MemberName
    public let arguments: [Argument]
    public init(_ name: MemberName, arguments: [Argument] = []) {
        self.name = name
        self.arguments = arguments
    }
}
