// What the dispatcher reports is one value, defined in the vocabulary and
// carried by the D-Bus contract; the library's callers name it without
// importing Routing.
@_exported import struct Routing.OpenURLOutcome
@_exported import enum Routing.Outcome
