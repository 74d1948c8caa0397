/// Tells a double click from two single ones: two presses on the same target within
/// ``interval``, the second one not already part of a double click.
///
/// A value with an injected time, so tests decide what "400 ms later" is without waiting. The
/// target is whatever the owner hit-tested the press to (a list row's index, say), so a second
/// press one row lower is a new single click even when quick.
///
/// ```swift
/// switch tracker.press(on: row, at: clock()) {
/// case .single: select(row)
/// case .double: open(row)
/// }
/// ```
public struct ClickTracker: Sendable {
    /// What a press counts as.
    public enum Click: Hashable, Sendable {
        case single, double
    }

    /// Longest gap between the presses of a double click, in seconds; 400 ms is about what
    /// desktops default to.
    public var interval: Double

    private var last: (target: AnyHashableSendable, time: Double)?

    public init(interval: Double = 0.4) {
        self.interval = interval
    }

    /// Records a press on `target` at `time` (seconds on any monotonic clock).
    public mutating func press<Target: Hashable & Sendable>(on target: Target, at time: Double) -> Click {
        let key = AnyHashableSendable(target)
        if let last, last.target == key, time >= last.time, time - last.time <= interval {
            // A third quick press starts over as a single click rather than opening twice.
            self.last = nil
            return .double
        }
        last = (key, time)
        return .single
    }

    /// Forgets the last press (after the screen under it changed: a tab switch, a scroll).
    public mutating func reset() { last = nil }
}

/// A type-erased hashable value that is also `Sendable`, for ``ClickTracker``'s targets.
struct AnyHashableSendable: Hashable, @unchecked Sendable {
    // Safe: it is only ever made from a `Hashable & Sendable` value (ClickTracker.press), and
    // AnyHashable adds no state of its own.
    let value: AnyHashable

    init<T: Hashable & Sendable>(_ value: T) { self.value = AnyHashable(value) }
}
