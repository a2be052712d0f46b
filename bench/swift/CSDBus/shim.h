/* sd-bus (systemd's D-Bus library) for bench/swift/sd-relay.swift. */
#include <systemd/sd-bus.h>
