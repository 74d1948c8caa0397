import DropboxWire
import Foundation
import Remote

/// A file's revisions as `log` shows them: who made each (you, a member by name, or "another
/// member"), one line each, or the objects `log --json` prints.
public enum RevisionList {
    /// "you (Ada)" for your own revisions, the member's name for others' ("another member" when
    /// the server does not know the id: an id is never shown as a name), "-" when unknown.
    public static func who(_ id: String?, you: RemoteAccount?, names: [String: String]) -> String {
        guard let id else { return "-" }
        if let you, you.id == id { return "you (\(you.displayName))" }
        return names[id] ?? "another member"
    }

    /// "PATH was deleted by bob; its revisions can still be restored", when the file is deleted
    /// (who deleted it when the club says: its own route; Dropbox and WebDAV do not).
    public static func deletedLine(_ path: String, history: RemoteRevisions, you: RemoteAccount?, names: [String: String]) -> String? {
        guard history.isDeleted else { return nil }
        let by = history.deletedBy.map { " by " + who($0, you: you, names: names) } ?? ""
        return "\(path) was deleted\(by); its revisions can still be restored"
    }

    /// Who made a revision and who wrote in it with them live: "ann with you (Ada), ray".
    public static func writers(_ entry: RemoteEntry, in history: RemoteRevisions, you: RemoteAccount?, names: [String: String]) -> String {
        let others = history.writers(of: entry).dropFirst(entry.modifiedBy == nil ? 0 : 1)
        let author = who(entry.modifiedBy, you: you, names: names)
        guard !others.isEmpty else { return author }
        return author + " with " + others.map { who($0, you: you, names: names) }.joined(separator: ", ")
    }

    /// One line a revision: its rev, when, its size (as `size` writes it) and who (with whom);
    /// every name escaped.
    public static func lines(_ history: RemoteRevisions, you: RemoteAccount?, names: [String: String], formatter: DateFormatter,
                             size: (Int64) -> String) -> String {
        let entries = history.entries
        var lines = ""
        for entry in entries {
            let date = entry.modified.map(formatter.string) ?? ""
            let size = size(entry.size)
            // Revs and ids come from the server: shown escaped, like every name.
            lines += TerminalSafe.escape(entry.rev ?? "-") + "  " + date.padding(toLength: 16, withPad: " ", startingAt: 0) + "  "
                + size.padding(toLength: max(10, size.count), withPad: " ", startingAt: 0) + "  "
                + TerminalSafe.escape(writers(entry, in: history, you: you, names: names)) + "\n"
        }
        return lines
    }

    /// Whether `rev` looks like a rev: letters and digits, as `log` prints them.
    public static func isRev(_ rev: String) -> Bool {
        !rev.isEmpty && rev.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }
}

/// A revision as `log --json` prints it (`path_display`, `modified_by` once encoded).
public struct RevisionJSON: Encodable, Sendable {
    public var rev: String?
    public var pathDisplay: String
    public var size: Int64
    public var modified: Date?
    public var modifiedBy: String?
    public var modifiedById: String?
    public var you: Bool
    /// The other members who wrote in it live (names, "another member" where unknown), and
    /// their account ids; empty for most revisions.
    public var writtenWith: [String]
    public var writtenWithIds: [String]

    public init(_ entry: RemoteEntry, in history: RemoteRevisions, you account: RemoteAccount?, names: [String: String]) {
        writtenWithIds = Array(history.writers(of: entry).dropFirst(entry.modifiedBy == nil ? 0 : 1))
        writtenWith = writtenWithIds.map { id in account?.id == id ? account?.displayName ?? id : names[id] ?? "another member" }
        rev = entry.rev
        pathDisplay = entry.path
        size = entry.size
        modified = entry.modified
        modifiedById = entry.modifiedBy
        modifiedBy = account?.id == entry.modifiedBy && entry.modifiedBy != nil ? account?.displayName : entry.modifiedBy.flatMap { names[$0] }
        you = account != nil && account?.id == entry.modifiedBy
    }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(rev, forKey: .rev)
        try object.encode(pathDisplay, forKey: .pathDisplay)
        try object.encode(size, forKey: .size)
        try object.encode(modified, forKey: .modified)
        try object.encode(modifiedBy, forKey: .modifiedBy)
        try object.encode(modifiedById, forKey: .modifiedById)
        try object.encode(you, forKey: .you)
        try object.encode(writtenWith, forKey: .writtenWith)
        try object.encode(writtenWithIds, forKey: .writtenWithIds)
    }

    enum CodingKeys: String, CodingKey { case rev, pathDisplay, size, modified, modifiedBy, modifiedById, you, writtenWith, writtenWithIds }
}

/// Dates as the history and listing commands print them (JSON goes through the CLI's encoder).
public enum JSONLines {
    /// Dates as `ls` and `log` print them, "2026-11-22 14:03" in local time: one formatter per
    /// listing, not one per line.
    public static func localTimeFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter
    }
}
