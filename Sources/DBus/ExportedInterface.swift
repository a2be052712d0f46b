/// An interface an object exports: its methods, properties and signals.
///
/// The same description routes incoming calls, checks their signatures and
/// generates the introspection XML, so the three cannot disagree.
public struct ExportedInterface: Sendable {
    /// The interface's name.
    public let name: InterfaceName
    /// Its methods.
    public var methods: [ExportedMethod]
    /// Its properties, read through `org.freedesktop.DBus.Properties`.
    public var properties: [ExportedProperty]
    /// The signals it may emit.
    public var signals: [ExportedSignal]

    /// An interface `name` with these members.
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
    /// The argument's name.
    public let name: String
    /// The argument's type.
    public let type: DBusType
    /// An argument `name` of `type`.
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

/// What an `async` method answers, and what it does once that answer is sent.
public struct MethodAnswer: Sendable {
    /// The reply's values.
    public var values: [Value]
    /// Runs in the method's task right after the reply is handed to the
    /// connection (written to the socket, unless it is full or more of the
    /// loop's turn waits to run: see `EventLoop.send`), and before the
    /// call counts as answered (`Connection.callsInFlight`): work the caller
    /// need not wait for, such as a log line. Not run when the method throws.
    public var afterReply: (@Sendable () -> Void)?

    /// An answer of `values`, then `afterReply`.
    public init(_ values: [Value], afterReply: (@Sendable () -> Void)? = nil) {
        self.values = values
        self.afterReply = afterReply
    }
}

/// What the loop-queue part of a staged method found
/// (`ExportedMethod.staged(_:arguments:results:answer:)`).
public enum StagedAnswer: Sendable {
    /// The answer, sent at once; its `afterReply` runs right after, on the loop queue.
    case now(MethodAnswer)
    /// The work that has to wait (for a peer, a timer, a launch), run in a
    /// task as an `asyncAnswer` method is: queued behind the sender's calls
    /// in flight, counted in `callsInFlight`, answered when it returns.
    case later(@Sendable () async throws(DBusError) -> MethodAnswer)
}

/// A method an object exports.
public struct ExportedMethod: Sendable {
    /// How a method produces its reply.
    public enum Body: Sendable {
        /// Runs on the connection's loop queue, in message order; keep it short.
        case immediate(@Sendable (MethodCall) throws(DBusError) -> [Value])
        /// Runs in its own task; the reply is sent when it returns, then
        /// the answer's `afterReply` runs.
        case deferred(@Sendable (MethodCall) async throws(DBusError) -> MethodAnswer)
        /// Runs on the loop queue, in message order, as `immediate` does;
        /// what it cannot answer there it hands on to run as `deferred` does.
        case staged(@Sendable (MethodCall) throws(DBusError) -> StagedAnswer)
    }

    /// The method's name.
    public var name: MemberName { storage.name }
    /// What it takes: a call with another signature is answered `InvalidArgs`.
    public var arguments: [Argument] { storage.arguments }
    /// What it returns.
    public var results: [Argument] { storage.results }
    var body: Body { storage.body }

    /// Everything, shared: a call's method is copied from the table into the
    /// call's job and its reply check, and a copy is then one retain, not
    /// one for each of its strings, arrays and closure.
    private final class Storage: Sendable {
        let name: MemberName
        let arguments: [Argument]
        let results: [Argument]
        let body: Body
        let inputSignature: Signature
        let outputSignature: Signature
        let resultTypes: [DBusType]

        init(name: MemberName, arguments: [Argument], results: [Argument], body: Body) {
            self.name = name
            self.arguments = arguments
            self.results = results
            self.body = body
            self.inputSignature = Signature(arguments.map { $0.type })
            self.resultTypes = results.map { $0.type }
            self.outputSignature = Signature(resultTypes)
        }
    }
    private let storage: Storage

    /// A method answered immediately, on the loop queue, in the order calls arrive.
    public init(
        _ name: MemberName, arguments: [Argument] = [], results: [Argument] = [],
        handler: @escaping @Sendable (MethodCall) throws(DBusError) -> [Value]
    ) {
        self.init(name, arguments: arguments, results: results, body: .immediate(handler))
    }

    /// A method that may wait (for other calls, for a timer) before answering.
    public init(
        _ name: MemberName, arguments: [Argument] = [], results: [Argument] = [],
        asyncHandler: @escaping @Sendable (MethodCall) async throws(DBusError) -> [Value]
    ) {
        self.init(name, arguments: arguments, results: results, body: .deferred { call throws(DBusError) in MethodAnswer(try await asyncHandler(call)) })
    }

    /// A method that may wait before answering, and has work to do once
    /// the caller has its answer (`MethodAnswer.afterReply`).
    public init(
        _ name: MemberName, arguments: [Argument] = [], results: [Argument] = [],
        asyncAnswer: @escaping @Sendable (MethodCall) async throws(DBusError) -> MethodAnswer
    ) {
        self.init(name, arguments: arguments, results: results, body: .deferred(asyncAnswer))
    }

    /// A method that answers at once when it can and waits only when it
    /// must: `answer` runs on the loop queue, in the order calls
    /// arrive (keep it short, as an immediate handler), and returns either
    /// the answer or the work left, which then runs in a task as an
    /// `asyncAnswer` method's does. A call answered at once costs no task,
    /// no async frame and no turn of the executor.
    ///
    /// A factory rather than an initializer: a handler that only throws
    /// would otherwise fit both this and `init(_:arguments:results:handler:)`.
    public static func staged(
        _ name: MemberName, arguments: [Argument] = [], results: [Argument] = [],
        answer: @escaping @Sendable (MethodCall) throws(DBusError) -> StagedAnswer
    ) -> ExportedMethod {
        ExportedMethod(name, arguments: arguments, results: results, body: .staged(answer))
    }

    private init(_ name: MemberName, arguments: [Argument], results: [Argument], body: Body) {
        storage = Storage(name: name, arguments: arguments, results: results, body: body)
    }

    /// What a call must carry, and what the handler must return: worked
    /// out once, not for every call.
    var inputSignature: Signature { storage.inputSignature }
    var outputSignature: Signature { storage.outputSignature }
    var resultTypes: [DBusType] { storage.resultTypes }
}

/// A read-only property an object exports through `org.freedesktop.DBus.Properties`.
public struct ExportedProperty: Sendable {
    /// The property's name.
    public let name: MemberName
    /// The property's type.
    public let type: DBusType
    /// Whether the value never changes while the object exists (introspected as
    /// `EmitsChangedSignal=const`), so clients may cache it.
    public let isConstant: Bool
    let read: @Sendable () -> Value

    /// A property `name` of `type`, whose value `read` gives.
    public init(_ name: MemberName, type: DBusType, isConstant: Bool = false, read: @escaping @Sendable () -> Value) {
        self.name = name
        self.type = type
        self.isConstant = isConstant
        self.read = read
    }
}

/// A signal an object may emit, described for introspection.
public struct ExportedSignal: Sendable {
    /// The signal's name.
    public let name: MemberName
    /// Its arguments.
    public let arguments: [Argument]
    /// A signal `name` with `arguments`.
    public init(_ name: MemberName, arguments: [Argument] = []) {
        self.name = name
        self.arguments = arguments
    }
}
