import HostNames

// Reads one host per line (JSON-free: `\n` ends it; hosts never contain one)
// and prints `ok HOST` or `fail REASON`: scripts/host-agreement compares this
// with a browser-grade reference parser line by line.
while let line = readLine(strippingNewline: true) {
    switch HostName.parse(line) {
    case .success(let host): print("ok \(host)")
    case .failure(let failure): print("fail \(failure.reason)")
    }
}
