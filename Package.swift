// swift-tools-version: 6.0
//
// Layering, bottom to top (each target imports only those below it):
//   CDBus         libdbus as a system library; only DBus imports it
//   DBus          validated names, values, messages, a connection and its event loop
//   Spawn         posix_spawn with a clean signal state and no inherited descriptors
//   Routing       pure: URL validation, handler specs, the innermost-first walk
//   DispatcherAPI the public D-Bus contract: names, result strings, version
//   Desktop       XDG: base dirs, keyfiles, mimeapps.list, desktop entries, Exec; the launcher
//   OpenURLDaemon the daemon as a library: the Dispatcher1 object and its lifecycle
//   openurld      main.swift: argument parsing and wiring only
import PackageDescription

let package = Package(
    name: "openurld",
    products: [
        .executable(name: "openurld", targets: ["openurld"]),
        .executable(name: "openurl", targets: ["openurl"]),
        .library(name: "OpenURL", targets: ["OpenURL"]),
    ],
    targets: [
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .target(name: "DBus", dependencies: ["CDBus"]),
        .target(name: "CSpawn"),
        .target(name: "Spawn", dependencies: ["CSpawn"]),
        .target(name: "Routing"),
        .target(name: "DispatcherAPI", dependencies: ["DBus"]),
        .target(name: "Desktop", dependencies: ["DBus", "Routing", "Spawn", "DispatcherAPI"]),
        .target(name: "OpenURLDaemon", dependencies: ["DBus", "Routing", "DispatcherAPI", "Desktop"]),
        .target(name: "OpenURL", dependencies: ["DBus", "Routing", "DispatcherAPI"]),
        .executableTarget(name: "openurld", dependencies: ["OpenURLDaemon", "DispatcherAPI", "Desktop", "Spawn"]),
        .executableTarget(name: "openurl", dependencies: ["OpenURL"]),

        .executableTarget(name: "routing-benchmark", dependencies: ["Routing"], path: "bench/RoutingBenchmark"),

        .target(name: "TestSupport", dependencies: ["DBus", "Spawn"], path: "Tests/TestSupport"),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport", "CDBus"]),
        .testTarget(name: "RoutingTests", dependencies: ["Routing"]),
        .testTarget(name: "DesktopTests", dependencies: ["Desktop", "Routing", "TestSupport"]),
        .testTarget(name: "DaemonTests", dependencies: ["OpenURLDaemon", "DBus", "DispatcherAPI", "Desktop", "Routing", "Spawn", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
