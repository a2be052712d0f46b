extension Duration {
    /// The duration in whole nanoseconds: 0 when negative, `UInt64.max`
    /// when longer than that holds. A plain integer is what a task should
    /// keep across a suspension: a `Duration` or a clock instant held across
    /// one was seen corrupted (its `components` trapped) in debug builds of
    /// this toolchain.
    public var nanosecondsClamped: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflowed) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowedAgain) = whole.addingReportingOverflow(UInt64(clamping: attoseconds / 1_000_000_000))
        return overflowed || overflowedAgain ? .max : total
    }
}
