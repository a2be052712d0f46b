// The type this module's answers are made of is defined once, in the
// vocabulary, so that the D-Bus contract (DetectLinks) carries the same value;
// clients of LinkDetection name it without importing Routing.
@_exported import struct Routing.DetectedLink
