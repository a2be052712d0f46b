import Glibc
import Routing

// Registry lookup cost as the registry grows with unrelated handlers.
//
// Handlers are spread over 50 schemes and 500 hosts (a third exact hosts, a
// third wildcard domains, a third any-host with a path glob). Each lookup is
// for a URL whose scheme and host are shared by a fixed handful of handlers,
// so a lookup that does not scan unrelated handlers costs the same at 10 and
// at 10 000. Prints one line per size and the 10 000 : 10 ratio.
//
//   swift run -c release routing-benchmark [--quick]

let quick = CommandLine.arguments.contains("--quick")
let schemes = (0..<50).map { "s\($0)" }
let hosts = (0..<500).map { "host\($0).example" }

func registry(size: Int) throws -> HandlerRegistry<Int> {
    var registry = HandlerRegistry<Int>(limits: .init(perOwner: size + 10, total: size + 10))
    // The handlers the measured URL matches, present at every size.
    for i in 0..<4 {
        _ = try registry.register(try HandlerSpec(schemes: ["https"], hosts: ["www.target.example"], name: "t\(i)"), owner: "o", payload: i)
    }
    for i in 0..<(size - 4) {
        let hostIndex = i % hosts.count
        let host: [String] =
            switch i % 3 {
            case 0: [hosts[hostIndex]]
            case 1: ["*." + hosts[hostIndex]]
            default: []
            }
        let spec = try HandlerSpec(
            schemes: [schemes[i % schemes.count]], hosts: host, paths: i % 3 == 2 ? ["/p\(i)/**"] : [],
            priority: Int32(i % 7), name: "h\(i)")
        _ = try registry.register(spec, owner: "o\(i % 97)", payload: i)
    }
    return registry
}

func nanosecondsPerLookup(_ registry: HandlerRegistry<Int>, rounds: Int) throws -> Double {
    let url = try ValidatedURL("https://www.target.example/some/path?q=1")
    let clock = ContinuousClock()
    var best = Double.infinity
    var sink = 0
    for _ in 0..<7 {  // the minimum of repeated runs: the least disturbed
        let start = clock.now
        for _ in 0..<rounds { sink &+= registry.candidates(for: url, caller: "c").count }
        let elapsed = clock.now - start
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        best = min(best, ns / Double(rounds))
    }
    precondition(sink > 0)
    return best
}

let rounds = quick ? 2_000 : 50_000
var results: [(Int, Double)] = []
for size in [10, 1_000, 10_000] {
    let ns = try nanosecondsPerLookup(try registry(size: size), rounds: rounds)
    results.append((size, ns))
    print("registry lookup, \(size) handlers: \(Int(ns.rounded())) ns per lookup (minimum of 7 runs of \(rounds))")
}
let ratio = results[2].1 / results[0].1
print("ratio 10000 : 10 = \(Double(Int(ratio * 100)) / 100) (target < 3)")
