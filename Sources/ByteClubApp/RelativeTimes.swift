import Foundation

/// When the relative times on screen ("just now", "5 min ago", "yesterday") next read
/// otherwise, so that they change with no key pressed, at the cost of a frame only then.
///
/// Each frame starts it afresh and notes the dates it wrote relatively (``drew(_:format:)``);
/// the app's clock tick asks ``isDue(now:)`` and wants a frame only once the earliest of them
/// has moved on. An idle screen whose newest note says "3 h ago" is drawn again in an hour, not
/// every tick; a screen of dates a week old, never.
public struct RelativeTimes: Equatable, Sendable {
    /// The earliest moment a relative time on screen reads otherwise; nil: none will.
    public private(set) var next: Date?

    public init() {}

    /// Notes a relative time drawn in this frame.
    public mutating func drew(_ date: Date?, format: DisplayFormat) {
        noteChange(at: format.nextChange(of: date))
    }

    /// Notes the moment some text drawn in this frame changes (a list's earliest, say).
    public mutating func noteChange(at moment: Date?) {
        guard let moment else { return }
        next = next.map { min($0, moment) } ?? moment
    }

    /// Whether a relative time on screen reads otherwise at `now`: the frame is out of date.
    public func isDue(now: Date) -> Bool { Self.due(next, now: now) }

    /// Whether text that changes at `moment` (nil: never) reads otherwise at `now`.
    static func due(_ moment: Date?, now: Date) -> Bool {
        moment.map { now >= $0 } ?? false
    }
}
