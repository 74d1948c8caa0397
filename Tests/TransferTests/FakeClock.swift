/// Uptime in nanoseconds that moves only when a test moves it, for the Transfer policies.
struct FakeClock {
    /// Not zero, so nothing passes by treating zero as "never".
    private(set) var now: UInt64 = 5_000_000_000

    mutating func advance(milliseconds: Double) {
        now += UInt64(milliseconds * 1e6)
    }

    mutating func advance(nanoseconds: UInt64) {
        now += nanoseconds
    }

    /// `now` plus some milliseconds, without moving.
    func after(milliseconds: Double) -> UInt64 {
        now + UInt64(milliseconds * 1e6)
    }
}
