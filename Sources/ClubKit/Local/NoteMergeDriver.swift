import Foundation
import NoteMerge

/// The one merge of a note's text, for every shell and every save (issue 54): the outbox's
/// sender when a queued save finds the note changed, the app's `Ctrl-S` and `M` when the server
/// has a newer revision, the app's typing done while a merge was being saved, and the command
/// line's `edit` bringing a draft up to the note's newest revision. Each asks this driver and
/// acts on its verdict; none runs a merge of its own, so they cannot disagree about which
/// changes overlap or when there is nothing to send.
public enum NoteMergeDriver {
    /// What to do with my text and theirs, both written over `base`.
    public enum Verdict: Sendable, Equatable {
        /// Theirs already holds every change of mine: take theirs; nothing is to be sent.
        case theirsHoldsMine(String)
        /// Both sides' changes, merged: this text is to be sent over theirs.
        case merged(String)
        /// The changes overlap: the result's conflicts are for the user to settle.
        case overlapping(MergeResult)
    }

    /// Merges `mine` and `theirs` over `base` (three ways, line by line).
    public static func merge(base: String, mine: String, theirs: String) -> Verdict {
        let result = ThreeWayMerge.merge(base: base, mine: mine, theirs: theirs)
        guard let merged = result.text else { return .overlapping(result) }
        return Array(merged.utf8) == Array(theirs.utf8) ? .theirsHoldsMine(merged) : .merged(merged)
    }

    /// Both sides' changes over `base` as one text that loses neither: where they overlap, both
    /// are kept (mine, then theirs). For a live note's shared text, which has no one to ask.
    public static func keepingBoth(base: String, mine: String, theirs: String) -> String {
        ThreeWayMerge.keepingBoth(base: base, mine: mine, theirs: theirs)
    }

    /// Text typed since `mine` was handed to a merge, laid onto the merge's result; nil when
    /// that typing overlaps what the merge brought in (the caller keeps the typing over its old
    /// base, so the next save merges again rather than drop their change).
    public static func rebase(typed: String, from mine: String, onto merged: String) -> String? {
        switch merge(base: mine, mine: typed, theirs: merged) {
        case .theirsHoldsMine(let text), .merged(let text): return text
        case .overlapping: return nil
        }
    }

    /// A draft written over `base` brought up to `theirs`, for an editor that shows overlaps as
    /// text: the merged text, and whether it holds conflict markers (``ConflictMarkers``) naming
    /// `who` as the other side.
    public static func catchUp(draft: String, base: String, theirs: String, who: String) -> (text: String, overlapped: Bool) {
        switch merge(base: base, mine: draft, theirs: theirs) {
        case .theirsHoldsMine(let text), .merged(let text): return (text, false)
        case .overlapping(let result): return (ConflictMarkers.text(result, theirs: who), true)
        }
    }
}

/// Overlapping changes written into the text, as git and diff3 mark them, for an editor of
/// plain text (the command line's `edit`).
public enum ConflictMarkers {
    public static let mine = "<<<<<<< yours"
    public static let separator = "======="

    /// The merge with each conflict as `<<<<<<< yours`, your lines, `=======`, theirs,
    /// `>>>>>>> NAME`.
    public static func text(_ result: MergeResult, theirs name: String) -> String {
        var out = ""
        for chunk in result.chunks {
            switch chunk {
            case .stable(let text):
                out += text
            case .conflict(let conflict):
                out += mine + "\n" + Self.line(conflict.mine) + separator + "\n" + Self.line(conflict.theirs) + ">>>>>>> " + name + "\n"
            }
        }
        return out
    }

    private static func line(_ text: String) -> String { text.isEmpty || text.hasSuffix("\n") ? text : text + "\n" }

    /// Whether `text` still holds a marked conflict.
    public static func present(in text: String) -> Bool {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.contains { $0.hasPrefix(mine) } && lines.contains { $0.hasPrefix(">>>>>>> ") }
    }

    /// Why a text still holding marked conflicts was not saved, in both shells' words; `title`
    /// as the shell shows it.
    public static func refusal(_ title: String) -> String {
        "\"\(title)\" still holds conflict markers (\(mine) … >>>>>>>); nothing was saved, your text is kept as a draft"
    }
}
