// libFuzzer target: the D-Bus value decoder on raw message bytes, and
// re-encoding what it decoded (built by scripts/fuzz).
import DBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValue(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? DBus.Message.demarshal(bytes), let values = try? message.arguments() else { return 0 }
    // What we decoded has the message's signature and can be sent again.
    precondition(values.signature == message.signature, "decoded '\(values.signature)' from '\(message.signature)'")
    guard let again = try? DBus.Message.methodCall(destination: nil, path: "/", interface: nil, member: "M", arguments: values) else {
        // Only values we refuse to send may fail: a string with a NUL cannot come from the wire.
        preconditionFailure("could not re-encode '\(values.signature)'")
    }
    precondition((try? again.arguments())?.signature == values.signature)
    return 0
}
