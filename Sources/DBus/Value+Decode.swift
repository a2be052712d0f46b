extension Array where Element == Value {
    /// The signature of these values taken as a message body.
    public var signature: Signature { Signature(map(\.type)) }

    /// These values converted to the given Swift types, which must match exactly.
    ///
    ///     let (url, options) = try call.arguments.decode(String.self, [String: Variant].self)
    ///
    /// - Throws: `InvalidArgs` naming the expected and the actual signature.
    public func decode<each T: DBusRepresentable>(_ types: repeat (each T).Type) throws(DBusError)
        -> (repeat each T)
    {
        var expected: [DBusType] = []
        repeat expected.append((each T).dbusType)
        guard elementsEqual(expected, by: { $0.hasType($1) }) else {
            throw .invalidArgs("expected arguments of type '\(Signature(expected))', got '\(signature)'")
        }
        let cursor = ValueCursor(self)
        return (repeat try cursor.next((each T).self))
    }
}

extension Array where Element == Value {
    /// `decode` for one value: inlinable, so that the caller's module
    /// specializes it (the variadic form runs generically, looking up type
    /// metadata for each call).
    @inlinable
    public func decode<A: DBusRepresentable>(_ a: A.Type) throws(DBusError) -> A {
        guard count == 1, let first = A(dbusValue: self[0]) else { throw mismatch(expecting: [A.dbusType]) }
        return first
    }

    /// `decode` for two values, inlinable as the one-value form is.
    @inlinable
    public func decode<A: DBusRepresentable, B: DBusRepresentable>(_ a: A.Type, _ b: B.Type) throws(DBusError) -> (A, B) {
        guard count == 2, let first = A(dbusValue: self[0]), let second = B(dbusValue: self[1]) else {
            throw mismatch(expecting: [A.dbusType, B.dbusType])
        }
        return (first, second)
    }

    /// The error `decode` throws when these values do not have the expected types.
    @usableFromInline
    func mismatch(expecting expected: [DBusType]) -> DBusError {
        guard elementsEqual(expected, by: { $0.hasType($1) }) else {
            return .invalidArgs("expected arguments of type '\(Signature(expected))', got '\(signature)'")
        }
        return .invalidArgs("an argument does not have type '\(Signature(expected))'")
    }
}

/// Walks values in order for `decode`.
private final class ValueCursor {
    var values: ArraySlice<Value>
    init(_ values: [Value]) { self.values = values[...] }
    func next<T: DBusRepresentable>(_: T.Type) throws(DBusError) -> T {
        guard let value = values.popFirst(), let converted = T(dbusValue: value) else {
            throw .invalidArgs("an argument does not have type '\(T.dbusType)'")
        }
        return converted
    }
}
