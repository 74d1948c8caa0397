import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where `byteclub today` keeps daily notes: config.toml's `daily_folder` (default `daily`,
/// inside the club's folder) and `daily_format` (default `%Y-%m-%d`, strftime's fields), so
/// the note of 25 November 2026 is `daily/2026-11-25.md`.
public struct DailyNotes: Sendable, Equatable {
    public var folder: String
    public var format: String

    public static let defaultFolder = "daily"
    public static let defaultFormat = "%Y-%m-%d"

    public init(folder: String = DailyNotes.defaultFolder, format: String = DailyNotes.defaultFormat) {
        self.folder = folder
        self.format = format
    }

    /// The strftime fields a date's name may use: the date's parts and names, never the time of
    /// day (one note a day) nor `%n`, `%t` or a locale's whole layout (`%c`, `%x`), which put
    /// slashes, spaces and control characters in a file name.
    static let fields: Set<Character> = ["Y", "y", "C", "m", "d", "e", "j", "a", "A", "b", "B", "h", "u", "w", "U", "W", "V", "G", "g", "F", "%"]

    /// Why `format` cannot name a day's note, or nil.
    public static func formatProblem(_ format: String) -> String? {
        var fieldCount = 0
        var index = format.startIndex
        while index < format.endIndex {
            let character = format[index]
            if character == "%" {
                let next = format.index(after: index)
                guard next < format.endIndex else { return "daily_format ends with a lone %" }
                guard fields.contains(format[next]) else {
                    return "daily_format: %\(format[next]) is not a date field (use %Y, %m, %d, %j, %a, %b…; e.g. \"%Y-%m-%d\")"
                }
                if format[next] != "%" { fieldCount += 1 }
                index = format.index(after: next)
                continue
            }
            if character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return "daily_format cannot hold control characters"
            }
            index = format.index(after: index)
        }
        if fieldCount == 0 { return "daily_format has no date field (e.g. \"%Y-%m-%d\"): every day would share one note" }
        if format.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.hasPrefix(".") }) {
            return "daily_format makes names that are not safe as a path (an empty, \".\"- or \"..\"-led part)"
        }
        return nil
    }

    /// Why `folder` cannot hold the daily notes, or nil: a path inside the club's folder.
    public static func folderProblem(_ folder: String) -> String? {
        let parts = folder.split(separator: "/", omittingEmptySubsequences: true)
        if folder.hasPrefix("/") { return "daily_folder is inside the club's folder: write it without a leading / (e.g. \"daily\")" }
        if parts.contains(where: { $0 == "." || $0 == ".." || $0.hasPrefix(".") }) { return "daily_folder cannot hold \".\" or \"..\" parts" }
        if folder.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "daily_folder cannot hold control characters" }
        return nil
    }

    /// The day's note name without its extension (`2026-11-25`; a format with `/` names
    /// subfolders), in `timeZone`.
    public func name(for date: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        var broken = tm()
        broken.tm_year = Int32((parts.year ?? 1970) - 1900)
        broken.tm_mon = Int32((parts.month ?? 1) - 1)
        broken.tm_mday = Int32(parts.day ?? 1)
        broken.tm_hour = 12
        // timegm fills the weekday and the day of the year from the date.
        var copy = broken
        _ = timegm(&copy)
        broken.tm_wday = copy.tm_wday
        broken.tm_yday = copy.tm_yday
        var buffer = [CChar](repeating: 0, count: 512)
        let count = strftime(&buffer, buffer.count, format, &broken)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The day's note, inside the club's folder: `daily/2026-11-25`, no extension.
    public func relativePath(for date: Date, timeZone: TimeZone = .current) -> String {
        let trimmed = folder.split(separator: "/").joined(separator: "/")
        let name = name(for: date, timeZone: timeZone)
        return trimmed.isEmpty ? name : trimmed + "/" + name
    }
}
