// sdbench's relay in Swift, in two shapes, to answer before the D-Bus layer
// is ported to sd-bus: what would Swift itself, and the layer's way of
// running a call (a task per call on the loop's thread), cost on that
// library? bench/run holds each against the C relay on sd-bus.
//
//   sd-relay ADDRESS NAME HANDLER callbacks   the C relay line for line: a filter, calls
//                                             sent with their cookie remembered
//   sd-relay ADDRESS NAME HANDLER tasks       each OpenURL answered by a task of its own,
//                                             preferring an executor that runs its jobs on
//                                             the loop's thread after each message (as
//                                             Connection.answerCallsOnLoop does); the task
//                                             sends HandleURL and awaits the reply through a
//                                             continuation kept by cookie, then answers
//
// Owns NAME; for each org.openurld.Dispatcher1.OpenURL(s URL), calls
// org.openurld.Handler1.HandleURL(s URL, a{sv} context) at /h0 on the
// connection owning HANDLER, with the context openurld sends, and answers
// (b), true for "handled". One thread. sd-bus's variadic functions
// (sd_bus_message_append, sd_bus_reply_method_return) cannot be called from
// Swift: the messages are built with append_basic and containers, which
// those functions do underneath. No DBus module and no `Value`s in either
// shape: the layer's own structures are the other half of its cost.
//
// Built by bench/run with swiftc, as the shipped binaries are (optimised,
// the runtime linked statically), so that the package does not need
// libsystemd to build.
import CSDBus
import Glibc
import Synchronization

func fail(_ message: String) -> Never {
    let line = "sd-relay: " + message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 5, ["callbacks", "tasks"].contains(arguments[4]) else {
    fail("usage: sd-relay ADDRESS NAME HANDLER callbacks|tasks")
}
let inTasks = arguments[4] == "tasks"

// One thread touches these: the loop's (sd-bus objects are not thread-safe
// anyway). nonisolated(unsafe) says so to the compiler instead of a lock
// the C relay does not take.
nonisolated(unsafe) var bus: OpaquePointer? = nil
nonisolated(unsafe) var handler = ""

func check(_ result: Int32, _ what: String) {
    if result < 0 { fail("\(what): \(String(cString: strerror(-result)))") }
}

check(sd_bus_new(&bus), "sd_bus_new")
check(sd_bus_set_address(bus, arguments[1]), "sd_bus_set_address")
check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
check(sd_bus_start(bus), "sd_bus_start")
check(sd_bus_request_name(bus, arguments[2], 0), "sd_bus_request_name")

/// The handler's unique name, once: openurld calls handlers by it.
do {
    var query: OpaquePointer? = nil
    var reply: OpaquePointer? = nil
    check(sd_bus_message_new_method_call(
        bus, &query, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner"), "GetNameOwner")
    check(appendString(query, arguments[3]), "GetNameOwner")
    check(sd_bus_call(bus, query, 0, nil, &reply), "nobody owns \(arguments[3])")
    var unique: UnsafePointer<CChar>? = nil
    check(sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "s")), &unique), "GetNameOwner's reply")
    handler = String(cString: unique!)
    sd_bus_message_unref(query)
    sd_bus_message_unref(reply)
}

func appendString(_ message: OpaquePointer?, _ text: UnsafePointer<CChar>) -> Int32 {
    sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), text)
}

func appendString(_ message: OpaquePointer?, _ text: String) -> Int32 {
    text.withCString { appendString(message, $0) }
}

/// HandleURL(URL, context) to the handler, sent; its cookie, or 0.
func sendHandleURL(_ url: UnsafePointer<CChar>, caller: UnsafePointer<CChar>) -> UInt64 {
    var call: OpaquePointer? = nil
    guard sd_bus_message_new_method_call(bus, &call, handler, "/h0", "org.openurld.Handler1", "HandleURL") >= 0 else { return 0 }
    defer { sd_bus_message_unref(call) }
    func entry(_ key: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>) -> Bool {
        sd_bus_message_open_container(call, CChar(UInt8(ascii: "e")), "sv") >= 0
            && appendString(call, key) >= 0
            && sd_bus_message_open_container(call, CChar(UInt8(ascii: "v")), "s") >= 0
            && appendString(call, value) >= 0
            && sd_bus_message_close_container(call) >= 0
            && sd_bus_message_close_container(call) >= 0
    }
    var cookie: UInt64 = 0
    guard appendString(call, url) >= 0,
        sd_bus_message_open_container(call, CChar(UInt8(ascii: "a")), "{sv}") >= 0,
        entry("caller", caller), entry("caller-app-id", ""), entry("original-url", url),
        sd_bus_message_close_container(call) >= 0,
        sd_bus_send(bus, call, &cookie) >= 0
    else { return 0 }
    return cookie
}

/// Answers `original` with (b).
func answer(_ original: OpaquePointer?, _ value: Bool) {
    var reply: OpaquePointer? = nil
    guard sd_bus_message_new_method_return(original, &reply) >= 0 else { return }
    var flag: Int32 = value ? 1 : 0
    if sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "b")), &flag) >= 0 { _ = sd_bus_send(bus, reply, nil) }
    sd_bus_message_unref(reply)
}

/// Whether a reply says "handled" (a method return whose first string is it).
func isHandled(_ reply: OpaquePointer?) -> Bool {
    var type: UInt8 = 0
    var result: UnsafePointer<CChar>? = nil
    return sd_bus_message_get_type(reply, &type) >= 0 && type == UInt8(SD_BUS_MESSAGE_METHOD_RETURN)
        && sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "s")), &result) > 0 && result.map { strcmp($0, "handled") == 0 } == true
}

// ---- callbacks: the C relay's table of calls in flight, by cookie ----

let slotCount = 4096  // calls in flight; 16 clients need 16
nonisolated(unsafe) var slots = [(cookie: UInt64, original: OpaquePointer?)](repeating: (0, nil), count: slotCount)

// ---- tasks: an executor on the loop's thread, and the continuations waiting for replies ----

/// Runs the jobs of tasks that prefer it on the loop's thread, after the
/// message that enqueued them (the layer's LoopExecutor, without the
/// dispatch queue it posts to when a job comes from another thread: every
/// job here comes from the loop's).
final class LoopJobs: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    func runJobs() {
        while true {
            let batch = jobs.withLock { jobs in
                defer { jobs.removeAll(keepingCapacity: true) }
                return jobs
            }
            if batch.isEmpty { return }
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

let executor = LoopJobs()
/// The tasks waiting for a reply, by their call's cookie; a dictionary, as the layer keeps its calls.
nonisolated(unsafe) var waiting: [UInt64: UnsafeContinuation<Reply, Never>] = [:]

/// sd-bus's pointers, wrapped to cross into a task. Unchecked: they never
/// leave the loop's thread, where the task runs; the strings live in
/// `original`, referenced until the task has answered it.
struct Handed: @unchecked Sendable {
    let original: OpaquePointer?
    let url: UnsafePointer<CChar>
    let caller: UnsafePointer<CChar>
}

/// A reply, handed to the task that waits for it (on the loop's thread too).
struct Reply: @unchecked Sendable { let message: OpaquePointer? }

func relayInTask(_ call: Handed) {
    sd_bus_message_ref(call.original)
    Task(executorPreference: executor) {
        let cookie = sendHandleURL(call.url, caller: call.caller)
        var handled = false
        if cookie != 0 {
            let reply = await withUnsafeContinuation { waiting[cookie] = $0 }
            handled = isHandled(reply.message)
            sd_bus_message_unref(reply.message)
        }
        answer(call.original, handled)
        sd_bus_message_unref(call.original)
    }
}

let filter: sd_bus_message_handler_t = { message, _, _ in
    var type: UInt8 = 0
    sd_bus_message_get_type(message, &type)
    if type == UInt8(SD_BUS_MESSAGE_METHOD_CALL), sd_bus_message_is_method_call(message, "org.openurld.Dispatcher1", "OpenURL") > 0 {
        var url: UnsafePointer<CChar>? = nil
        sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &url)
        guard let url, let caller = sd_bus_message_get_sender(message) else { return 1 }
        if inTasks {
            relayInTask(Handed(original: message, url: url, caller: caller))
            return 1
        }
        let cookie = sendHandleURL(url, caller: caller)
        if cookie != 0 { slots[Int(cookie % UInt64(slotCount))] = (cookie, sd_bus_message_ref(message)) }
        return 1
    }
    if type == UInt8(SD_BUS_MESSAGE_METHOD_RETURN) || type == UInt8(SD_BUS_MESSAGE_METHOD_ERROR) {
        var cookie: UInt64 = 0
        guard sd_bus_message_get_reply_cookie(message, &cookie) >= 0 else { return 0 }
        if inTasks {
            guard let continuation = waiting.removeValue(forKey: cookie) else { return 0 }
            continuation.resume(returning: Reply(message: sd_bus_message_ref(message)))
            return 1
        }
        let index = Int(cookie % UInt64(slotCount))
        guard slots[index].cookie == cookie, let original = slots[index].original else { return 0 }
        slots[index].original = nil
        answer(original, isHandled(message))
        sd_bus_message_unref(original)
        return 1
    }
    return 0
}

check(sd_bus_add_filter(bus, nil, filter, nil), "sd_bus_add_filter")
_ = write(1, "ready\n", 6)
// Each sd_bus_process handles one message; the jobs it enqueued run right
// after it, on this thread, before the next.
while true {
    let r = sd_bus_process(bus, nil)
    if r < 0 { fail("sd_bus_process: \(String(cString: strerror(-r)))") }
    if inTasks { executor.runJobs() }
    if r > 0 { continue }
    check(sd_bus_wait(bus, UInt64.max), "sd_bus_wait")
}
