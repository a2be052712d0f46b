// libFuzzer target: host normalisation (HostNames). Built only with
// OPENURLD_FUZZ=1 (see scripts/fuzz): libFuzzer supplies main.
// scripts/host-agreement compares the same parser with Node's WHATWG URL.
import HostNames

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHost(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard case .success(let host) = HostName.parse(text) else { return 0 }
    let serialized = host.description
    // The result is ASCII, and normalising it again changes nothing.
    precondition(serialized.utf8.allSatisfy { $0 < 0x80 }, "non-ASCII result for \(text.debugDescription)")
    guard case .success(let again) = HostName.parse(serialized) else {
        preconditionFailure("\(serialized) does not parse again (from \(text.debugDescription))")
    }
    precondition(again == host, "not idempotent: \(text.debugDescription) → \(serialized) → \(again)")
    _ = host.matchingKey
    return 0
}
