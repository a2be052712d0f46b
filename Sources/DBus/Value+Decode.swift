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
        guard map(\.type) == expected else {
            throw .invalidArgs("expected arguments of type '\(Signature(expected))', got '\(signature)'")
        }
        let cursor = ValueCursor(self)
        return (repeat try cursor.next((each T).self))
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
