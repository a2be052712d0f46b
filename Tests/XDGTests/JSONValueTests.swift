import Testing

@testable import XDG

/// The JSON reader behind browser profiles (Chromium's `Local State`):
/// what it reads, and that malformed or too deep text reads as nothing.
@Suite struct JSONValueTests {
    @Test(arguments: [
        (#"{}"#, JSONValue.object([:])),
        (#" [ ] "#, .array([])),
        (#"{"a": [1, "x", true, false, null], "b": {"c": -2.5e1}}"#,
         .object(["a": .array([.number(1), .string("x"), .bool(true), .bool(false), .null]), "b": .object(["c": .number(-25)])])),
        (#""tab\there \"q\" \u00e9 \ud83d\ude00""#, .string("tab\there \"q\" é 😀")),
        (#"{"profile":{"info_cache":{"Default":{"name":"Person 1"}}}}"#,
         .object(["profile": .object(["info_cache": .object(["Default": .object(["name": .string("Person 1")])])])])),
    ])
    func readsWhatBrowsersWrite(_ text: String, _ expected: JSONValue) {
        #expect(JSONValue(parsing: text) == expected)
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "[1 2]", "\"open", "tru", "{} x", "[\"\\ud83d\\u0041\"]",
        String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
    ])
    func malformedOrTooDeepTextIsNothing(_ text: String) {
        #expect(JSONValue(parsing: text) == nil, "\(text.prefix(40))")
    }

    @Test func sixtyFourLevelsAreRead() {
        let text = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(JSONValue(parsing: text) != nil)
    }
}
