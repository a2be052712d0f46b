/// A line's UTF-8 built in a buffer its caller lends (on its stack), part
/// by part. The daemon's line for each URL is about ten parts, and each
/// appended to an array cost about 165 instructions, 1 700 a line.
struct LineBuffer {
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    /// Whether a part did not fit: the line is then incomplete.
    private(set) var overflowed = false

    /// An empty line in `storage`, which must outlive it.
    init(in storage: UnsafeMutableBufferPointer<UInt8>) { self.storage = storage }

    /// The bytes added so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: storage[..<count]) }

    /// Adds `text`'s UTF-8, or marks the line overflowed when it does not fit.
    mutating func add(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { add($0) }
        if copied == nil {
            var text = text
            text.withUTF8 { add($0) }
        }
    }

    private mutating func add(_ part: UnsafeBufferPointer<UInt8>) {
        guard !overflowed, part.count <= storage.count - count else { return overflowed = true }
        guard let source = part.baseAddress, let target = storage.baseAddress else { return }
        (target + count).update(from: source, count: part.count)
        count += part.count
    }
}
