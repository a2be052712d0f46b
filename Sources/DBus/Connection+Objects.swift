import Glibc

extension Connection {
    /// Exports an object at `path` with the given interfaces, replacing any
    /// object exported there before. `Introspectable`, `Properties` and `Peer`
    /// are answered for it automatically.
    public func export(_ interfaces: [ExportedInterface], at path: ObjectPath) {
        state.withLock { state in
            state.objects[path] = interfaces
            state.lastRoutedObject = nil
        }
    }

    /// Removes the object at `path`; later calls to it get `UnknownObject`.
    public func unexport(_ path: ObjectPath) {
        state.withLock { state in
            state.objects.removeValue(forKey: path)
            state.lastRoutedObject = nil
        }
    }

    /// Emits a signal from `path`.
    /// - Throws: `InvalidArgs` if an argument cannot be sent.
    public func emit(
        _ member: MemberName, on interface: InterfaceName, from path: ObjectPath, arguments: [Value] = []
    ) throws(DBusError) {
        send(try Message.signal(path: path, interface: interface, member: member, arguments: arguments))
    }

    /// Routes one incoming method call. Runs on the loop queue.
    func handleMethodCall(_ message: Message) {
        let outcome = route(message)
        switch outcome {
        case .reply(let result):
            reply(to: message, with: result, declared: nil)
        case .run(let method, let call):
            switch method.body {
            case .immediate(let handler):
                let result: Result<[Value], DBusError>
                do { result = .success(try handler(call)) } catch { result = .failure(error) }
                reply(to: message, with: result, declared: method)
            case .deferred(let handler):
                admit(DeferredCall(method: method, message: message, work: .handler(handler, call)))
            case .staged(let first):
                let staged: StagedAnswer
                do throws(DBusError) { staged = try first(call) } catch {
                    reply(to: message, with: .failure(error), declared: method)
                    return
                }
                switch staged {
                case .now(let answer):
                    reply(to: message, with: .success(answer.values), declared: method)
                    answer.afterReply?()
                case .later(let rest):
                    admit(DeferredCall(method: method, message: message, work: .rest(rest)))
                }
            }
        }
    }

    /// Starts a deferred call, or queues it behind its sender's calls in
    /// flight: each sender runs at most `CallQueues.maximumRunning` at once, so
    /// a client sending thousands of calls without waiting shares the
    /// executor with everyone else instead of filling it. Immediate methods,
    /// and staged ones answered at once, are never queued: they run in bus
    /// order, as before.
    private func admit(_ deferred: DeferredCall) {
        let sender = deferred.message.sender?.rawValue ?? ""
        let admitted = state.withLock { $0.callQueues.admit(deferred, from: sender) }
        switch admitted {
        case .start: start(deferred, from: sender)
        case .queued: break
        case .refused:
            reply(to: deferred.message, with: .failure(DBusError(
                .limitsExceeded,
                "this connection already has \(CallQueues.maximumRunning) calls running and \(CallQueues.maximumQueued) waiting; wait for their answers")),
                declared: nil)
        }
    }

    private func start(_ deferred: DeferredCall, from sender: String) {
        // Registered under the lock, so that the call cannot finish before its entry is made.
        let handedTo: (UnsafeContinuation<CallJob?, Never>, CallJob)? = state.withLock { state in
            let job = CallJob(id: state.nextCallID, deferred: deferred, sender: sender)
            state.nextCallID += 1
            if let idle = state.idleCallWorkers.popLast() {
                state.callsInFlight[job.id] = idle.task
                return (idle.continuation, job)
            }
            let executor = state.loopExecutor
            let worker = CallWorker(first: job)
            let task = Task(executorPreference: executor) { [self] in await work(as: worker, on: executor) }
            worker.task.withLock { $0 = task }
            state.callsInFlight[job.id] = task
            return nil
        }
        if let (continuation, job) = handedTo { continuation.resume(returning: job) }
    }

    /// Runs deferred calls one after another in one task: its first, the
    /// calls its sender queued meanwhile, then whatever `start` hands it
    /// while it is parked. A task's allocator keeps the memory its calls'
    /// async frames took (about 13 KB for a refused `OpenURL`, against the
    /// 984 bytes a new task starts with), so a worker that is reused does
    /// not allocate it again for every call, as a task per call did.
    /// `work`, `run` and `park` are `nonisolated(nonsending)`: they stay on
    /// the worker's executor (the loop's, once `answerCallsOnLoop`) instead
    /// of hopping to the generic one between calls.
    ///
    /// An idle worker holds no message, whatever the optimiser does with
    /// lifetimes: each call is consumed by `run`, and the first is taken from
    /// the worker rather than captured by the task's closure.
    nonisolated(nonsending) private func work(as worker: CallWorker, on executor: LoopExecutor?) async {
        var next = worker.first.withLock { $0.take() }
        while let job = next.take() {
            next = await run(consume job)
            if next == nil { next = await park(worker, on: executor) }
        }
    }

    /// Answers `job`'s call, then runs the work after its reply; returns the
    /// call its sender queued meanwhile, registered in this task's name.
    nonisolated(nonsending) private func run(_ job: consuming CallJob) async -> CallJob? {
        let answer: Result<MethodAnswer, DBusError>
        do throws(DBusError) { answer = .success(try await job.deferred.work.answer()) } catch { answer = .failure(error) }
        reply(to: job.deferred.message, with: answer.map(\.values), declared: job.deferred.method)
        if case .success(let answered) = answer { answered.afterReply?() }
        return state.withLock { state in
            let task = state.callsInFlight.removeValue(forKey: job.id)
            guard let next = state.callQueues.finished(from: job.sender) else { return nil }
            let queued = CallJob(id: state.nextCallID, deferred: next, sender: job.sender)
            state.nextCallID += 1
            state.callsInFlight[queued.id] = task
            return queued
        }
    }

    /// Waits, idle, for `start` to hand `worker` a call; `nil` when it is
    /// not kept: enough workers are idle, calls now run elsewhere
    /// (`answerCallsOnLoop`), the connection closed, or the task was
    /// cancelled (at shutdown), which every later call would inherit.
    nonisolated(nonsending) private func park(_ worker: CallWorker, on executor: LoopExecutor?) async -> CallJob? {
        guard !Task.isCancelled, let task = worker.task.withLock({ $0 }) else { return nil }
        return await withUnsafeContinuation { continuation in
            let kept = state.withLock { state -> Bool in
                guard state.isOpen, state.loopExecutor === executor, state.idleCallWorkers.count < CallWorker.keptIdle else { return false }
                state.idleCallWorkers.append(IdleCallWorker(continuation: continuation, task: task))
                return true
            }
            if !kept { continuation.resume(returning: nil) }
        }
    }

    /// Lets the idle workers end: they are handed no call.
    func releaseIdleCallWorkers() {
        for idle in state.withLock({ state in defer { state.idleCallWorkers = [] }; return state.idleCallWorkers }) {
            idle.continuation.resume(returning: nil)
        }
    }

    /// Runs the handlers of `async` methods on the connection's loop, where
    /// their calls are read, instead of on the global executor; the tasks
    /// they start and await inherit it. A handler that calls out is then
    /// resumed on the thread that read the reply, right after reading it: no
    /// thread hand-off on the way in or out.
    ///
    /// While a handler runs, nothing else on the connection is read, so
    /// handlers must never block; the daemon's do not (every call they make
    /// is asynchronous, every file they read is small and local). Calls
    /// arriving before this is set keep the global executor.
    public func answerCallsOnLoop() {
        let executor = LoopExecutor(loop: loop)
        loop.sync { loop.executor = executor }
        state.withLock { $0.loopExecutor = executor }
        // Workers made before run on the global executor: they are not reused.
        releaseIdleCallWorkers()
    }

    /// How many method calls to exported objects are still being answered
    /// (their replies are queued for sending once this reaches them).
    public var callsInFlight: Int { state.withLock { $0.callsInFlight.count } }

    /// Cancels the handlers of the method calls still running; each still
    /// answers, with whatever its handler makes of the cancellation.
    public func cancelCallsInFlight() {
        for task in state.withLock({ Array($0.callsInFlight.values) }) { task.cancel() }
    }

    /// Waits until every method call is answered, or `deadline` passes.
    /// - Returns: whether every call was answered.
    public func answerCallsInFlight(before deadline: ContinuousClock.Instant) async -> Bool {
        while callsInFlight > 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    private enum Delivery {
        case reply(Result<[Value], DBusError>)
        case run(ExportedMethod, MethodCall)
    }

    /// Finds the method a call is for, checks its signature and decodes its
    /// arguments: the body is read only for a call that reaches a method
    /// with its signature.
    private func route(_ message: Message) -> Delivery {
        let header = message.header
        guard let path = header.path, let member = header.member else {
            return .reply(.failure(.invalidArgs("method call without path or member")))
        }
        let interface = header.interface
        if let standard = routeStandard(message, interface: interface, member: member) { return standard }
        guard let interfaces = exportedInterfaces(at: path) else {
            return .reply(.failure(DBusError(.unknownObject, "no object at path \(path)")))
        }
        // Plain loops over the exported interfaces: this runs for every call.
        var method: ExportedMethod?
        var interfaceFound = false
        search: for exported in interfaces {
            if let interface {
                guard exported.name == interface else { continue }
                interfaceFound = true
            }
            for candidate in exported.methods where candidate.name == member {
                method = candidate
                break search
            }
            if interface != nil { break }
        }
        if let interface, !interfaceFound {
            return .reply(.failure(DBusError(.unknownInterface, "object \(path) has no interface \(interface)")))
        }
        guard let method else {
            let owner = interface.map { " on interface \($0)" } ?? ""
            return .reply(.failure(DBusError(.unknownMethod, "no method \(member)\(owner) at \(path)")))
        }
        guard method.inputSignature == header.signature else {
            return .reply(.failure(.invalidArgs("\(method.name) takes arguments of type '\(method.inputSignature)', got '\(header.signature)'")))
        }
        do throws(DBusError) {
            return .run(method, MethodCall(message: message, arguments: try message.arguments()))
        } catch {
            return .reply(.failure(error))
        }
    }

    /// The interfaces exported at `path`. The object found last is kept
    /// (until objects change), so that a run of calls to one object hashes
    /// no path.
    private func exportedInterfaces(at path: ObjectPath) -> [ExportedInterface]? {
        state.withLock { state in
            if let last = state.lastRoutedObject, last.path == path { return last.interfaces }
            guard let found = state.objects[path] else { return nil }
            state.lastRoutedObject = (path, found)
            return found
        }
    }

    private func routeStandard(_ message: Message, interface: InterfaceName?, member: MemberName) -> Delivery? {
        // Compared as names (lengths first): as strings, each was a general comparison.
        if interface == .peer { return peer(member, message) }
        let introspect = member == .introspect && (interface.map { $0 == .introspectable } ?? true)
        let properties = interface == .properties
        guard introspect || properties, let path = message.path else { return nil }
        let interfaces = state.withLock { $0.objects[path] }
        if introspect {
            // Children are worked out for Introspect only, not for every call.
            let children = state.withLock { Introspection.children(of: path, among: $0.objects.keys) }
            guard interfaces != nil || !children.isEmpty else { return nil }
            guard message.signature.types.isEmpty else {
                return .reply(.failure(.invalidArgs("Introspect takes no arguments, got '\(message.signature)'")))
            }
            let xml = Introspection.xml(for: interfaces ?? [], children: children)
            return .reply(.success([.string(xml)]))
        }
        guard let interfaces else { return nil }
        do { return .reply(.success(try self.properties(member, message, interfaces))) } catch {
            return .reply(.failure(error))
        }
    }

    /// Answers `org.freedesktop.DBus.Peer` at any path, whether or not an
    /// object is exported there, as every D-Bus library does: `Ping`, and
    /// `GetMachineId` from the machine's D-Bus ID.
    private func peer(_ member: MemberName, _ message: Message) -> Delivery {
        guard message.signature.types.isEmpty else {
            return .reply(.failure(.invalidArgs("\(member) takes no arguments, got '\(message.signature)'")))
        }
        switch member.rawValue {
        case "Ping":
            return .reply(.success([]))
        case "GetMachineId":
            guard let id = Self.machineID else {
                return .reply(.failure(.failed("this machine has no D-Bus machine ID (/etc/machine-id, /var/lib/dbus/machine-id)")))
            }
            return .reply(.success([.string(id)]))
        default:
            return .reply(.failure(DBusError(.unknownMethod, "no method \(member) on interface \(InterfaceName.peer)")))
        }
    }

    /// The machine's D-Bus ID: 32 lower-case hexadecimal digits, read once.
    private static let machineID: String? = {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            guard let file = fopen(path, "r") else { continue }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 64)
            guard fgets(&line, Int32(line.count), file) != nil else { continue }
            let id = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if id.utf8.count == 32, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) { return id }
        }
        return nil
    }()

    /// Answers `org.freedesktop.DBus.Properties`; all properties are read-only.
    private func properties(_ member: MemberName, _ message: Message, _ interfaces: [ExportedInterface])
        throws(DBusError) -> [Value]
    {
        func find(_ name: String) throws(DBusError) -> ExportedInterface {
            guard let found = interfaces.first(where: { $0.name.rawValue == name }) else {
                throw DBusError(.unknownInterface, "no interface \(name) at \(message.path ?? .root)")
            }
            return found
        }
        switch member.rawValue {
        case "Get":
            let (interfaceName, propertyName) = try message.decode(String.self, String.self)
            let interface = try find(interfaceName)
            guard let property = interface.properties.first(where: { $0.name.rawValue == propertyName }) else {
                throw DBusError(.unknownProperty, "no property \(propertyName) on \(interfaceName)")
            }
            return [.variant(property.read())]
        case "GetAll":
            let interfaceName = try message.decode(String.self)
            let interface = try find(interfaceName)
            let entries = interface.properties.map {
                DictionaryEntry(key: .string($0.name.rawValue), value: .variant($0.read()))
            }
            return [.dictionary(key: .string, value: .variant, entries)]
        case "Set":
            let (interfaceName, propertyName, _) = try message.decode(String.self, String.self, Variant.self)
            let interface = try find(interfaceName)
            guard interface.properties.contains(where: { $0.name.rawValue == propertyName }) else {
                throw DBusError(.unknownProperty, "no property \(propertyName) on \(interfaceName)")
            }
            throw DBusError(.propertyReadOnly, "property \(propertyName) is read-only")
        default:
            throw DBusError(.unknownMethod, "no method \(member) on \(InterfaceName.properties)")
        }
    }

    /// Sends the reply (or error) for a call, unless the caller asked for none.
    /// A handler that returns values of the wrong types is a bug in this
    /// process; the caller gets `Failed` rather than a malformed reply.
    private func reply(to call: Message, with result: Result<[Value], DBusError>, declared method: ExportedMethod?) {
        guard call.expectsReply else { return }
        var result = result
        if case .success(let values) = result, let method, !values.elementsEqual(method.resultTypes, by: { $0.hasType($1) }) {
            result = .failure(
                .failed(
                    "internal error: \(method.name) produced '\(values.signature)' instead of '\(method.outputSignature)'"
                ))
        }
        if case .success(let values) = result {
            let size = values.reduce(0) { $0 + $1.wireSizeUpperBound }
            if size > Message.maximumBodySize {
                result = .failure(DBusError(
                    .limitsExceeded,
                    "the reply would be up to \(size) bytes, more than the \(Message.maximumBodySize) a message on the bus may safely hold"))
            }
        }
        do {
            switch result {
            case .success(let values): send(try Message.reply(to: call, arguments: values))
            case .failure(let error): send(try Message.errorReply(to: call, error))
            }
        } catch {
            // The values could not be encoded (e.g. a NUL in a string): still answer.
            if let fallback = try? Message.errorReply(to: call, .failed("could not encode the reply: \(error.message)")) {
                send(fallback)
            }
        }
    }
}
