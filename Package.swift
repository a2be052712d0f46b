// swift-tools-version: 6.0
//
// Layering, bottom first: each target depends only on targets listed before
// it, the manifest declares them in this order, and the public contract sits
// right on the bus layer with nothing but the vocabulary under it
// (PackageLayeringTests checks all three).
//   CPosix        the system headers Glibc's module map leaves out (eventfd); only Posix imports it
//   Posix         errno, file descriptors, the event counter, thread priority, durations as nanoseconds and the one retry on EINTR (swift-system's shape, no Foundation)
//   CommandLineOptions pure: options declared once, for parsing and --help, by every program
//   SafeText      pure: peer text escaped for logs, terminals and error messages
//   HostNames     pure: hosts as browsers read them (WHATWG host parsing, UTS #46, Punycode) and show them
//   Routing       pure, the vocabulary: validated URLs, targets, handler specs and answers, outcomes, found links,
//                 the chooser's question, rules as the contract shows them; the innermost-first walk
//   CDBus         libdbus as a system library: for the fast front (scripts/build-front), the benchmarks'
//                 C-shaped relay, and the tests' reference for the wire format; no library target imports it
//   DBus          validated names, values, messages in the wire format, a connection to the bus's socket and its event loop
//   DispatcherAPI the public D-Bus contract: names, members, option keys, result words, and
//                 each value of the interfaces on the wire (over DBus and the vocabulary only)
//   CSpawn        the C side of spawning: posix_spawn with a reset signal mask and closed descriptors
//   Spawn         posix_spawn with a clean signal state and no inherited descriptors
//   LinearRegex   pure: regular expressions matched in linear time (for rules)
//   LinkDetection pure: finding links in text (also a product, for clients)
//   XDG           pure: base dirs, keyfiles, mimeapps.list, desktop entries, Exec, MIME globs, resolution
//   FileAccess    reading files and listing directories, bounded (no D-Bus, no processes)
//   Rules         rule files: parsing, matching and effects (pure), finding and reading them
//   Router        one walk for a URL: handlers, rules, deadline, fallback, outcome (no I/O of its own)
//   Desktop       desktop integration: reading the XDG tree, launching, watching files, asking the chooser
//   ChooserService the org.openurld.Chooser1 service, for chooser programs (no GTK)
//   OpenURLDaemon the daemon as a library: the Dispatcher1 object and its lifecycle
//   OpenURL       the SwiftUI-shaped client library (the public product)
//   OpenURLCommand the openurl CLI as a library
//   openurld, openurl, openurld-chooser-dmenu  main.swift: wiring only
//   openurld-multicall the three in one binary, chosen by argv[0] (what the packages install)
//   CGtk          GTK 4 and libadwaita as a system library; only openurld-chooser imports it
//   openurld-chooser the GTK chooser: its two windows over CGtk, wired to ChooserService
import PackageDescription

#if canImport(Glibc)
import Glibc
#endif

let package = Package(
    name: "openurld",
    products: [
        .executable(name: "openurld", targets: ["openurld"]),
        .executable(name: "openurl", targets: ["openurl"]),
        .executable(name: "openurld-chooser-dmenu", targets: ["openurld-chooser-dmenu"]),
        .executable(name: "openurld-multicall", targets: ["openurld-multicall"]),
        .library(name: "OpenURL", targets: ["OpenURL", "LinkDetection", "HostNames"]),
    ],
    targets: [
        .systemLibrary(name: "CPosix"),
        .target(name: "Posix", dependencies: ["CPosix"]),
        .target(name: "CommandLineOptions"),
        .target(name: "SafeText"),
        .target(name: "HostNames", dependencies: ["SafeText"]),
        .target(name: "Routing", dependencies: ["HostNames", "SafeText"]),
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .target(name: "DBus", dependencies: ["SafeText", "Posix"]),
        .target(name: "DispatcherAPI", dependencies: ["DBus", "Routing"]),
        .target(name: "CSpawn"),
        .target(name: "Spawn", dependencies: ["CSpawn", "Posix", "SafeText"]),
        .target(name: "LinearRegex"),
        .target(name: "LinkDetection", dependencies: ["HostNames", "Routing"]),
        .target(name: "XDG", dependencies: ["SafeText"]),
        .target(name: "FileAccess", dependencies: ["Posix", "SafeText"]),
        .target(name: "Rules", dependencies: ["Routing", "LinearRegex", "XDG", "FileAccess"]),
        .target(name: "Router", dependencies: ["Routing", "Rules", "XDG"]),
        .target(name: "Desktop", dependencies: ["Posix", "SafeText", "DBus", "HostNames", "Routing", "Spawn", "DispatcherAPI", "XDG", "FileAccess", "Rules", "Router"]),
        .target(name: "ChooserService", dependencies: ["CommandLineOptions", "Posix", "DBus", "HostNames", "Routing", "DispatcherAPI", "Router", "SafeText", "Spawn", "XDG"]),
        .target(name: "OpenURLDaemon", dependencies: ["CommandLineOptions", "Posix", "SafeText", "DBus", "Routing", "DispatcherAPI", "XDG", "FileAccess", "Rules", "Router", "Desktop", "LinkDetection"]),
        .target(name: "OpenURL", dependencies: ["DBus", "Routing", "DispatcherAPI"]),
        .target(name: "OpenURLCommand", dependencies: ["CommandLineOptions", "Posix", "SafeText", "HostNames", "DBus", "DispatcherAPI", "XDG", "FileAccess", "Rules", "Router", "Desktop", "Routing", "LinkDetection", "Spawn"]),
        .executableTarget(name: "openurld", dependencies: ["OpenURLDaemon", "Spawn"]),
        .executableTarget(name: "openurl", dependencies: ["OpenURLCommand", "Spawn"]),
        .executableTarget(name: "openurld-chooser-dmenu", dependencies: ["ChooserService", "Spawn"]),
        // The three above in one binary, chosen by argv[0]: what the packages install.
        .executableTarget(name: "openurld-multicall", dependencies: ["OpenURLCommand", "OpenURLDaemon", "ChooserService", "SafeText", "Spawn"]),

        .executableTarget(name: "open-link", dependencies: ["OpenURL"], path: "Examples/OpenLink"),
        .executableTarget(name: "link-rewriter", dependencies: ["OpenURL"], path: "Examples/LinkRewriter"),
        .executableTarget(name: "host-normalise", dependencies: ["HostNames"], path: "Tests/HostAgreement"),
        .executableTarget(name: "routing-benchmark", dependencies: ["Routing"], path: "bench/RoutingBenchmark"),
        // bench/run's floor of the project's own D-Bus layer (no walk): what the daemon's figures are made of.
        .executableTarget(name: "dbus-layer-floor", dependencies: ["DBus", "DispatcherAPI", "Routing"], path: "bench/DBusLayer"),
        // bench/run's C relay in Swift over libdbus alone: what the language costs on the forwarding path, apart from the layer.
        .executableTarget(name: "swift-relay", dependencies: ["CDBus"], path: "bench/SwiftRelay"),
        // bench/run's wire-format rows: a forwarded call's four messages read and written through libdbus, and through WireFormat.
        .executableTarget(name: "wire-format-benchmark", dependencies: ["CDBus", "DBus", "DispatcherAPI", "WireAgreement"], path: "bench/WireFormat"),

        .target(name: "TestSupport", dependencies: ["CDBus", "DBus", "Spawn", "OpenURLDaemon", "Router", "Desktop", "Routing", "DispatcherAPI", "XDG"], path: "Tests/TestSupport"),
        // What agreeing with libdbus on the wire format means, for DBusTests and fuzz-wire.
        .target(name: "WireAgreement", dependencies: ["CDBus", "DBus"], path: "Tests/WireAgreement"),
        // What the contents rules match, read plainly over their tree, for XDGTests and fuzz-magic.
        .target(name: "MagicReference", dependencies: ["XDG"], path: "Tests/MagicReference"),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport", "CDBus", "Posix", "WireAgreement"]),
        .testTarget(name: "RoutingTests", dependencies: ["Routing", "HostNames", "SafeText", "TestSupport"], exclude: ["URLStandard"]),
        .testTarget(name: "LinearRegexTests", dependencies: ["LinearRegex"]),
        // agreement/: the corpus and verdicts scripts/detect-agreement reads.
        .testTarget(name: "LinkDetectionTests", dependencies: ["LinkDetection"], exclude: ["agreement", "twitter-text"]),
        .testTarget(name: "RulesTests", dependencies: ["ChooserService", "HostNames", "Rules", "Routing", "LinearRegex", "XDG", "Router", "TestSupport"]),
        .testTarget(name: "XDGTests", dependencies: ["XDG", "Routing", "MagicReference"]),
        .testTarget(name: "DesktopTests", dependencies: ["XDG", "Desktop", "FileAccess", "Router", "Routing", "TestSupport"]),
        .testTarget(name: "ReliabilityTests", dependencies: ["OpenURLDaemon", "DBus", "DispatcherAPI", "Desktop", "Router", "Routing", "SafeText", "XDG", "Spawn", "TestSupport"]),
        .testTarget(name: "ClientTests", dependencies: ["XDG", "Rules", "OpenURL", "OpenURLCommand", "OpenURLDaemon", "Router", "Desktop", "DBus", "DispatcherAPI", "Routing", "Spawn", "TestSupport"]),
        .testTarget(name: "DaemonTests", dependencies: ["CommandLineOptions", "FileAccess", "XDG", "OpenURLDaemon", "DBus", "DispatcherAPI", "Router", "Desktop", "Routing", "Rules", "Spawn", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// The GTK chooser needs GTK 4 and libadwaita to build; OPENURLD_NO_CHOOSER=1
// leaves it out (a headless build: the daemon, the CLI, the dmenu adapter).
if getenv("OPENURLD_NO_CHOOSER") == nil {
    package.products.append(.executable(name: "openurld-chooser", targets: ["openurld-chooser"]))
    package.targets += [
        .systemLibrary(name: "CGtk", pkgConfig: "libadwaita-1", providers: [.apt(["libadwaita-1-dev"])]),
        .executableTarget(
            name: "openurld-chooser",
            dependencies: ["CGtk", "ChooserService", "CommandLineOptions", "DispatcherAPI", "Desktop", "FileAccess", "HostNames", "Router", "Routing", "Rules", "Spawn", "XDG"]),
    ]
}

// Fuzz targets have no main (libFuzzer supplies it), so they exist only when
// scripts/fuzz asks for them: OPENURLD_FUZZ=1 swift build --sanitize=fuzzer.
if getenv("OPENURLD_FUZZ") != nil {
    package.targets += [
        .executableTarget(name: "fuzz-url", dependencies: ["Routing"], path: "Tests/Fuzz/FuzzURL"),
        .executableTarget(name: "fuzz-host", dependencies: ["HostNames"], path: "Tests/Fuzz/FuzzHost"),
        .executableTarget(name: "fuzz-exec", dependencies: ["XDG"], path: "Tests/Fuzz/FuzzExec"),
        .executableTarget(name: "fuzz-keyfile", dependencies: ["XDG"], path: "Tests/Fuzz/FuzzKeyFile"),
        .executableTarget(name: "fuzz-magic", dependencies: ["XDG", "MagicReference"], path: "Tests/Fuzz/FuzzMagic"),
        .executableTarget(name: "fuzz-value", dependencies: ["DBus"], path: "Tests/Fuzz/FuzzValue"),
        .executableTarget(name: "fuzz-wire", dependencies: ["DBus", "WireAgreement"], path: "Tests/Fuzz/FuzzWire"),
        .executableTarget(name: "fuzz-detect", dependencies: ["LinkDetection"], path: "Tests/Fuzz/FuzzDetect"),
        .executableTarget(name: "fuzz-rules", dependencies: ["Rules", "Routing", "LinearRegex"], path: "Tests/Fuzz/FuzzRules"),
    ]
}

// The daemon's targets: nonisolated async functions run on their caller's
// executor instead of hopping to the generic one (SE-0461). The daemon has no
// actors, and its calls run on the loop's task executor either way, so each
// hop only checked the task's executor preference under a lock (a dozen a
// call). The client library (OpenURL) and the D-Bus layer keep Swift 6's
// default: an app's main actor must not run the library's work. (Routing's
// one async function is the walk, which only the Router calls.) The layer
// marks the few functions that only wait, and its own call workers, as
// `nonisolated(nonsending)` one by one (see `Connection.call`).
for target in package.targets where ["Routing", "Rules", "Router", "Desktop", "OpenURLDaemon"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
}
