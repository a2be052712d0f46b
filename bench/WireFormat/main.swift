import DBus
import DispatcherAPI
import Glibc

// The four messages of a forwarded call, as the daemon reads and writes
// them: OpenURL(s) read, HandleURL(s a{sv}) written, its (ss) reply read,
// (b) written back. Once through libdbus (the layer's way today: bytes
// loaded and checked into a message, the body read with libdbus's
// iterators into `Value`s; a message made and its body appended) and once
// through `WireFormat`, the same format in Swift, from the same bytes to
// the same values. bench/run counts each under callgrind.
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
let context = DispatcherAPI.HandlerContext(caller: ":1.12", callerAppID: "", originalURL: url, activationToken: nil).dbusValue
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
@inline(never) func consume(_ value: Message) { withExtendedLifetime(value) {} }

func libdbusIteration() throws(DBusError) {
    let call = try Message.demarshal(openURLCall)
    consume(try call.arguments())
    consume(try Message.methodCall(destination: ":1.5", path: handlerPath, interface: DispatcherAPI.handlerInterface,
                                   member: DispatcherAPI.Member.handleURL, arguments: [.string(url), context]))
    consume(try Message.demarshal(handlerReply).arguments())
    consume(try Message.reply(to: call, arguments: [.boolean(true)]))
}

func swiftIteration(_ serial: UInt32) throws(DBusError) {
    let (call, arguments) = try WireFormat.decode(openURLCall)
    consume(arguments)
    consume(try WireFormat.encode(
        MessageHeader(kind: .methodCall, serial: serial, path: handlerPath, interface: DispatcherAPI.handlerInterface,
                      member: DispatcherAPI.Member.handleURL, destination: ":1.5"),
        body: [.string(url), context]))
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
