import Foundation
import Remote

/// Notes in the club's `templates/` folder, the text a new note starts from.
///
/// A template is an ordinary note; `{{title}}`, `{{date}}`, `{{time}}` and `{{author}}` in it are
/// filled when a note is made from it (the app's `n`, `byteclub new --template`, `byteclub
/// today`). Anything else in braces is left as it is: a template may show braces of its own.
public enum NoteTemplate {
    /// The folder, inside the club's folder, that holds the templates.
    public static let folderName = "templates"
    /// The template `byteclub today` starts a daily note from, when there is one.
    public static let dailyName = "daily"

    /// `text` with its placeholders filled: the date as `2026-11-25` and the time as `14:05`, in
    /// `timeZone` (the member's own, by default).
    public static func fill(_ text: String, title: String, author: String, now: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: now)
        let date = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        // One pass, so a title that itself holds "{{date}}" is not filled again.
        let values = ["title": title, "date": date, "time": time, "author": author]
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            let after = rest[open.upperBound...]
            if let close = after.range(of: "}}"),
               let value = values[after[..<close.lowerBound].trimmingCharacters(in: .whitespaces).lowercased()] {
                out += value
                rest = after[close.upperBound...]
            } else {
                out += "{{"
                rest = after
            }
        }
        return out + rest
    }

    /// `{{author}}`: the member's name in the club (`users/get_current_account`), the one the
    /// club shows beside their changes. A club's shared token speaks for whoever holds it, and
    /// its account's name (`club`) is no one's: then, and when the club cannot say (offline, a
    /// store without accounts), ``fallbackAuthor(environment:)``.
    public static func author(in store: any RemoteStore, environment: [String: String] = ProcessInfo.processInfo.environment) async -> String {
        if let account = try? await store.currentAccount(), !account.displayName.isEmpty, !account.isSharedToken {
            return account.displayName
        }
        return fallbackAuthor(environment: environment)
    }

    /// The name a member goes by in a template when the club cannot say: ``LocalMember``'s.
    public static func fallbackAuthor(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        LocalMember.name(environment: environment)
    }
}

/// A new note's title, checked before anything is written: it becomes a file name.
public enum NoteTitle {
    /// Why `title` cannot name a note, or nil when it can.
    public static func problem(_ title: String) -> String? {
        if title.trimmingCharacters(in: .whitespaces).isEmpty { return "a note's title cannot be empty" }
        if title.contains("/") { return "a note's title cannot hold \"/\" (\(title)); --folder puts it in a folder" }
        if title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a note's title cannot hold control characters"
        }
        if title.hasPrefix(".") { return "a note's title cannot start with \".\" (a hidden file)" }
        if title.utf8.count > 240 { return "a note's title is too long (at most 240 bytes)" }
        return nil
    }
}
