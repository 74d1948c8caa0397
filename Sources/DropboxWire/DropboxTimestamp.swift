import Foundation

/// Dropbox's timestamps, "2026-11-21T20:56:10Z": UTC, whole seconds.
///
/// Both directions are plain arithmetic on the civil date. A listing of 10,000 notes carries
/// 20,000 of them; a Calendar or a date formatter per timestamp cost 0.4 s there.
public enum DropboxTimestamp {
    /// The wire text of `date`, its fraction of a second dropped.
    public static func format(_ date: Date) -> String {
        // Clamped to ±10^15 s (some 30 million years): a date from a file's mtime or a peer's
        // answer can be anything, and Int64(1e300) or Int64(.nan) would trap.
        let interval = date.timeIntervalSince1970.rounded(.down)
        let seconds = interval.isNaN ? 0 : Int64(min(max(interval, -1e15), 1e15))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civil(fromDays: days)
        guard (0...9999).contains(year) else {
            // Out of the four-digit range Dropbox writes; still readable, never garbled.
            return "\(year)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
        }
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int, at index: Int, digits: Int) {
                var value = value
                for position in stride(from: index + digits - 1, through: index, by: -1) {
                    buffer[position] = UInt8(48 + value % 10)
                    value /= 10
                }
            }
            put(Int(year), at: 0, digits: 4)
            buffer[4] = UInt8(ascii: "-")
            put(month, at: 5, digits: 2)
            buffer[7] = UInt8(ascii: "-")
            put(day, at: 8, digits: 2)
            buffer[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, at: 11, digits: 2)
            buffer[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, at: 14, digits: 2)
            buffer[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, at: 17, digits: 2)
            buffer[19] = UInt8(ascii: "Z")
            return 20
        }
    }

    /// The date of wire text, or nil unless it is exactly `YYYY-MM-DDTHH:MM:SSZ` (a fraction
    /// of a second before the `Z` is accepted and dropped) with a real calendar date.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// `parse(_:)` on UTF-8 bytes.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 20, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":") else { return nil }
        if bytes.count > 20 {
            // Only a fraction may sit between the seconds and the Z: ".123".
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21,
                  bytes[20..<(bytes.count - 1)].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<(start + count) {
                let byte = bytes[index]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second <= 60 else { return nil }
        let days = Self.days(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + Int64(hour * 3600 + minute * 60 + second)))
    }

    // MARK: - Civil calendar arithmetic (proleptic Gregorian, as ISO 8601 uses)

    /// Days from 1970-01-01 to a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = Int64((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date `days` after 1970-01-01 (the inverse of `days(year:month:day:)`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
