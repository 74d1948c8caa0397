import Foundation

/// Times as the lists show them (sizes are TerminalUI's ``ByteFormat``, the CLI's too).
///
/// Times are relative to an injected "now", so the same entries always print the same way in
/// tests; the time zone is injected for the same reason.
public struct DisplayFormat: Sendable {
    public var now: @Sendable () -> Date
    public var timeZone: TimeZone

    public init(now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current) {
        self.now = now
        self.timeZone = timeZone
    }

    /// "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the date.
    public func relative(_ date: Date?) -> String {
        guard let date else { return "" }
        let seconds = now().timeIntervalSince(date)
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<86_400: return "\(Int(seconds / 3600)) h ago"
        case ..<(2 * 86_400): return "yesterday"
        case ..<(7 * 86_400): return "\(Int(seconds / 86_400)) days ago"
        default: return day(date)
        }
    }

    /// When ``relative(_:)`` of `date` next reads otherwise ("just now" becomes "1 min ago" a
    /// minute after `date`, "5 min ago" becomes "6 min ago" at the next whole minute since it);
    /// nil when it never will (no date, or a week old: the day itself).
    public func nextChange(of date: Date?) -> Date? {
        guard let date else { return nil }
        let seconds = now().timeIntervalSince(date)
        // The label's step, and the age at which the next one starts.
        let step: Double
        switch seconds {
        case ..<60: return date.addingTimeInterval(60)
        case ..<3600: step = 60
        case ..<86_400: step = 3600
        case ..<(2 * 86_400): return date.addingTimeInterval(2 * 86_400)
        case ..<(7 * 86_400): step = 86_400
        default: return nil
        }
        return date.addingTimeInterval((seconds / step).rounded(.down) * step + step)
    }

    /// "2026-11-21" in ``timeZone``. Arithmetic on the day number (a Calendar per row made a
    /// list of 10,000 old notes slow to draw).
    public func day(_ date: Date?) -> String {
        guard let date else { return "" }
        let local = Int((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))).rounded(.down))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        // Civil date from days since 1970-01-01 (proleptic Gregorian).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}
