import Foundation
import Remote
import TerminalUI

/// The history view of one note (`H` on the notes list): its revisions, newest first, the
/// selected one, and the diff of the selected revision against the current text.
///
/// A value in ``AppState/history``; ``HistoryLayer`` draws it and ``HistoryController`` fills it.
public struct NoteHistory: Sendable, Equatable {
    /// The note as the list showed it.
    public var entry: RemoteEntry
    /// Its revisions, newest first (the first is the current text).
    public var revisions: [RemoteEntry] = []
    public var isLoading = true
    /// Why the revisions or a revision's text could not be had.
    public var error: String?
    public var list = ListState()
    /// Authors' display names by account id.
    public var names: [String: String] = [:]
    /// Who else wrote in a revision, live, beside its author: account ids by rev.
    public var writtenWith: [String: [String]] = [:]
    /// Texts fetched so far, by rev.
    var texts: [String: String] = [:]
    /// A restore is in flight.
    public var isRestoring = false

    public init(entry: RemoteEntry) {
        self.entry = entry
    }

    /// The selected revision.
    public var selected: RemoteEntry? {
        revisions.indices.contains(list.selected) ? revisions[list.selected] : nil
    }

    /// The current text (the newest revision's), once fetched.
    public var currentText: String? { revisions.first.flatMap { $0.rev }.flatMap { texts[$0] } }

    /// The diff of the selected revision against the current text, or nil until both are in.
    public var diff: [DiffLine]? {
        guard let rev = selected?.rev, let old = texts[rev], let current = currentText else { return nil }
        return HistoryDiff.lines(from: old, to: current)
    }

    /// Who made `revision`, for display (escaped: names are the server's); "another member"
    /// while the name is unknown, never the account id. A revision others wrote in live names
    /// them too: "ann with ray, bo".
    public func author(of revision: RemoteEntry) -> String {
        guard let id = revision.modifiedBy else { return "—" }
        let author = TerminalSafe.escape(names[id] ?? MergeSession.someone)
        let others = (revision.rev.flatMap { writtenWith[$0] } ?? []).filter { $0 != id }
        guard !others.isEmpty else { return author }
        return author + " with " + others.map { TerminalSafe.escape(names[$0] ?? MergeSession.someone) }.joined(separator: ", ")
    }

    /// The rows of the revisions list: who, when, size.
    func rows(format: DisplayFormat) -> [ListRow] {
        revisions.enumerated().map { index, revision in
            let when = revision.modified.map { Self.stamp($0, format: format) } ?? ""
            let who = author(of: revision) + (index == 0 ? " (current)" : "")
            return ListRow([who, when, ByteFormat.size(revision.size)], searchText: who)
        }
    }

    /// "2026-11-22 10:42:07" in the format's time zone: revisions are often minutes apart,
    /// which "5 min ago" would blur.
    static func stamp(_ date: Date, format: DisplayFormat) -> String {
        let local = Int((date.timeIntervalSince1970 + Double(format.timeZone.secondsFromGMT(for: date))).rounded(.down))
        let second = ((local % 86_400) + 86_400) % 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return format.day(date) + " " + two(second / 3600) + ":" + two(second / 60 % 60) + ":" + two(second % 60)
    }
}
