import CDBus
import DBus
import DispatcherAPI
import Glibc
import WireAgreement

// The four messages of a forwarded call, as the daemon reads and writes
// them: OpenURL(s) read, HandleURL(s a{sv}) written, its (ss) reply read,
// (b) written back. Once through libdbus, the layer's way until it spoke to
// the bus itself (bytes loaded and checked into a message, the body read
// with libdbus's iterators into `Value`s; a message made and its body
// appended: the coder kept in Tests/WireAgreement as the tests' reference),
// and once through `WireFormat`, from the same bytes to the same values.
// bench/run counts each under callgrind.
//
//   wire-format-benchmark libdbus|swift ITERATIONS
//
// Prints the nanoseconds one iteration (four messages) took, the median of
// five timed runs of ITERATIONS each.

let arguments = CommandLine.arguments
guard arguments.count == 3, ["libdbus", "swift"].contains(arguments[1]), let iterations = Int(arguments[2]) else {
    let usage = "usage: wire-format-benchmark libdbus|swift ITERATIONS\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

let url = "https://bench.example/x"
let handlerContext = DispatcherAPI.HandlerContext(caller: ":1.12", callerAppID: "", originalURL: url, activationToken: nil)
// libdbus is given the context as `Value`s, the layer's way when it used
// libdbus; `WireFormat` writes it as the daemon does, as it is made.
let context = handlerContext.dictionary.dbusValue
// What arrives: the caller's OpenURL, and the handler's answer, as the bus delivers them.
let openURLCall = try WireFormat.encode(
    MessageHeader(kind: .methodCall, serial: 7, path: DispatcherAPI.objectPath, interface: DispatcherAPI.dispatcherInterface,
                  member: DispatcherAPI.Member.openURL, destination: DispatcherAPI.busName, sender: ":1.12"),
    body: [.string(url)])
let handlerReply = try WireFormat.encode(
    MessageHeader(kind: .methodReturn, serial: 9, replySerial: 3, destination: ":1.3", sender: ":1.5"),
    body: [.string("handled"), .string("")])
let handlerPath: ObjectPath = "/h0"

/// Keep the optimiser from dropping work whose result is unused; one for
/// each type, because a generic one would look up its type's metadata on
/// every call, work that neither way of reading and writing does.
@inline(never) func consume(_ value: [Value]) { withExtendedLifetime(value) {} }
@inline(never) func consume(_ value: [UInt8]) { withExtendedLifetime(value) {} }
@inline(never) func consume(_ value: OpaquePointer) { withExtendedLifetime(value) {} }

/// The message libdbus loads from `bytes`, checked as its loader checks what a socket brings.
func libdbusLoad(_ bytes: [UInt8]) -> OpaquePointer {
    var error = CDBus.DBusError()
    dbus_error_init(&error)
    let raw = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32($0.count), &error) }
    }
    guard let raw else { fatalError("libdbus refused the benchmark's own message") }
    return raw
}

func libdbusIteration() throws(DBus.DBusError) {
    let call = libdbusLoad(openURLCall)
    defer { dbus_message_unref(call) }
    consume(try LibdbusDecoder.decode(call))
    guard let handle = dbus_message_new_method_call(":1.5", handlerPath.rawValue, DispatcherAPI.handlerInterface.rawValue,
                                                    DispatcherAPI.Member.handleURL.rawValue) else { fatalError("out of memory") }
    try LibdbusEncoder.append([.string(url), context], to: handle)
    consume(handle)
    dbus_message_unref(handle)
    let reply = libdbusLoad(handlerReply)
    consume(try LibdbusDecoder.decode(reply))
    dbus_message_unref(reply)
    guard let answer = dbus_message_new_method_return(call) else { fatalError("out of memory") }
    try LibdbusEncoder.append([.boolean(true)], to: answer)
    consume(answer)
    dbus_message_unref(answer)
}

func swiftIteration(_ serial: UInt32) throws(DBus.DBusError) {
    let (call, arguments) = try WireFormat.decode(openURLCall)
    consume(arguments)
    consume(try WireFormat.encode(
        MessageHeader(kind: .methodCall, serial: serial, path: handlerPath, interface: DispatcherAPI.handlerInterface,
                      member: DispatcherAPI.Member.handleURL, destination: ":1.5"),
        body: try handlerContext.handleURLArguments(url: url)))
    consume(try WireFormat.decode(handlerReply).body)
    consume(try WireFormat.encode(
        MessageHeader(kind: .methodReturn, serial: serial &+ 1, replySerial: call.serial, destination: call.sender),
        body: [.boolean(true)]))
}

let swift = arguments[1] == "swift"
var times: [Duration] = []
for _ in 0..<5 {
    let clock = ContinuousClock()
    let start = clock.now
    for i in 0..<iterations {
        if swift { try swiftIteration(UInt32(truncatingIfNeeded: 2 * i + 2)) } else { try libdbusIteration() }
    }
    times.append(clock.now - start)
}
let median = times.sorted()[2]
let (seconds, attoseconds) = median.components
let nanoseconds = (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(max(iterations, 1))
print(nanoseconds)
