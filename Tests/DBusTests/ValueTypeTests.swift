import Testing

@testable import DBus

/// The checks of values against a signature ask `hasType`, and messages are
/// written with signatures made on the stack (`withSignature`): both must
/// give exactly the answers of the types and strings they stand in for.
@Suite struct ValueTypeTests {
    static let values: [Value] = [
        .byte(1), .boolean(true), .int16(-2), .uint16(2), .int32(-3), .uint32(3), .int64(-4), .uint64(4), .double(0.5),
        .string("s"), .objectPath(ObjectPath(trusted: "/a")), .signature(Signature([.string])),
        .variant(.string("v")), .variant(.array(.string, [])),
        .array(.string, [.string("a")]), .array(.variant, []), .array(.array(.byte), []),
        .dictionary(key: .string, value: .variant, [DictionaryEntry(key: .string("k"), value: .variant(.uint32(1)))]),
        .dictionary(key: .uint32, value: .string, []),
        .structure([.string("x"), .uint32(1)]), .structure([.uint32(1), .string("x")]), .structure([.string("x")]),
        .structure([.structure([.boolean(false)]), .array(.int32, [])]),
    ]
    static let types: [DBusType] =
        values.map(\.type) + [.unixFD, .array(.int32), .dictionary(key: .string, value: .string), .structure([.string, .string])]

    @Test func aValueHasATypeExactlyWhenItsTypeIsThatType() {
        for value in Self.values {
            for type in Self.types {
                #expect(value.hasType(type) == (value.type == type), "\(value) against \(type)")
            }
        }
    }

    @Test func aSignaturesLengthIsCountedWithoutMakingIt() {
        for type in Self.types {
            #expect(type.signatureLength == type.description.utf8.count, "\(type)")
        }
    }

    /// Signatures are equal, and hash alike, exactly when their types are,
    /// whether they were parsed from text or made from types.
    @Test func signaturesAreEqualExactlyWhenTheirTypesAre() throws {
        for first in Self.types {
            for second in Self.types {
                let parsed = try Signature(first.description + second.description)
                let made = Signature([first, second])
                #expect(parsed == made && parsed.hashValue == made.hashValue, "\(parsed)")
                for other in Self.types where other != second {
                    #expect(parsed != Signature([first, other]), "\(parsed) against \(first)\(other)")
                }
            }
        }
        let noText = ""
        #expect(Signature.empty == (try Signature(noText)))
    }
}
