import Crypto
import DropboxWire
import Foundation
import LiveText
import NoteMerge

/// A plain club's live note as the server writes it to its file (docs/live.md, "The file"): the
/// document its room's log makes, the revision marks the log holds, and what becomes of the file
/// the server finds there. No disk and no network: the room (``LiveRoom``) and the generated
/// histories (`SimulatedLiveHistory`) both write through it.
///
/// The file came from the document when the document holds it: a ``RevisionMark`` names its text
/// at a state the document has, or the members seeded the document from it (their first join,
/// under ``seedClientID(for:)``), or it is the document's text. Otherwise it was changed outside
/// the live session (the shell's `edit`, another tool, a member not in the note), and that change
/// is taken into the document once, as the server's edit, before the file is written again.
package struct LiveFileText: Sendable {
    package private(set) var document: LiveDocument
    package private(set) var marks: [RevisionMark] = []

    /// The document the room's stored frames make (each a ``LiveFrame``), edited as `clientID`;
    /// nil when one is neither an update this server can read nor a mark (an encrypted club's
    /// sealed updates), or an update waits for one that is not there.
    package init?(frames: [[UInt8]], clientID: UInt64) {
        var document = LiveDocument(clientID: clientID)
        var marks: [RevisionMark] = []
        for frame in frames {
            guard let (_, update) = LiveFrame.decode(frame) else { return nil }
            if let mark = RevisionMark(decoding: update) {
                marks.append(mark)
                continue
            }
            guard (try? document.apply(update: Data(update))) != nil else { return nil }
        }
        guard !document.hasPendingUpdates else { return nil }
        self.document = document
        self.marks = marks
    }

    package var text: String { document.text }

    /// Whether the log holds no update: no member has seeded the document yet, and the server
    /// neither writes nor takes the file in (the members seed it from the file at their join;
    /// taken in first, the text was there twice).
    package var isUnseeded: Bool { document.state.clocks.isEmpty }

    /// Whether the file's `text` came from the document (see the type's comment): it is the
    /// document's text, or the newest revision the document wrote or took in (its newest mark),
    /// or, before any revision, the text the document was seeded from.
    ///
    /// Only the newest: a file back at an older revision's text was put back by someone (a
    /// `restore`, an old copy uploaded) after the document moved on, and that is a change made
    /// outside, to take in. Held for having once been the document's text, a restore was never
    /// taken in, and the server wrote the document's newer text back over it (torture seed
    /// 16663060786968167069: two lines a restore had taken out came back in the next save).
    package func holds(_ file: String) -> Bool {
        if file == document.text { return true }
        if let newest = marks.last { return newest.digest == Self.digest(of: file) && document.state.covers(newest.state) }
        return isSeed(file)
    }

    /// Whether the document was seeded from `text` (``seed(of:)``).
    private func isSeed(_ text: String) -> Bool { !text.isEmpty && document.state[Self.seedClientID(for: text)] > 0 }

    /// The base of a change made outside, for a server that knows none of its own (after a
    /// restart): of the file's revisions' `texts` (any order), the one the document's newest
    /// mark names, else the next newest, and so on; before any revision, the text the document
    /// was seeded from. Nil when the document holds none of them (both texts are then kept whole).
    ///
    /// By the marks' order, not the revisions': a revision put back at an older one's text names
    /// that older mark, and taken as the base it hid the change (the restore) it is.
    package func newestHeld(among texts: [String]) -> String? {
        var byDigest: [[UInt8]: String] = [:]
        for text in texts { byDigest[Self.digest(of: text)] = text }
        for mark in marks.reversed() where document.state.covers(mark.state) {
            if let text = byDigest[mark.digest] { return text }
        }
        return texts.first(where: isSeed)
    }

    /// Takes the file's `file` into the document when it did not come from it: its changes since
    /// `base` (the newest text both the file and the document held) laid onto the document word
    /// by word (``TextMerge``), the document's words kept where both changed the same ones and
    /// the file's new words beside them; with no base known, both texts whole (nothing is
    /// lost). Returns the updates that do it, to store and relay before the
    /// file is written (none when the document holds the file).
    ///
    /// The last record returned is a ``RevisionMark`` of the file's text at the document's state
    /// after the merge: the document holds that revision now, so no one merges it in again (the
    /// server after a restart, which knows no base of its own, merged it twice).
    package mutating func takeIn(_ file: String, base: String?) -> [Data] {
        guard !isUnseeded, !holds(file) else { return [] }
        var updates: [Data] = []
        for edit in TextMerge.edits(base: base ?? "", mine: document.text, theirs: file) {
            if !edit.range.isEmpty { updates.append(document.delete(edit.range)) }
            if !edit.text.isEmpty { updates.append(document.insert(edit.text, at: edit.range.lowerBound)) }
        }
        let held = RevisionMark(digest: Self.digest(of: file), state: document.state)
        marks.append(held)
        return updates + [Data(held.encoded())]
    }

    /// The mark of the document's text now, to store in the room's log before the file is
    /// written with that text: a member who comes back does not merge that revision in again.
    package mutating func mark() -> [UInt8] {
        let mark = RevisionMark(digest: Self.digest(of: text), state: document.state)
        marks.append(mark)
        return mark.encoded()
    }

    /// The SHA-256 of a note's text, as a ``RevisionMark`` holds it.
    package static func digest(of text: String) -> [UInt8] { Array(SHA256.hash(data: Data(text.utf8))) }

    /// The first update of a note's shared text: all of `text`, under ``seedClientID(for:)``.
    /// The server seeds a new room so; a member seeds a note with no live history so (the same
    /// bytes from everyone, so two seeds of one text are one text).
    package static func seed(of text: String) -> Data {
        var document = LiveDocument(clientID: seedClientID(for: text))
        return document.insert(text, at: 0)
    }

    /// The client id a seed of `text` is written under: the same for every member seeding that
    /// text (below 2^53, as Yjs's ids are), so two members who seed it at once make one text.
    package static func seedClientID(for text: String) -> UInt64 {
        let digest = SHA256.hash(data: Data(text.utf8))
        return digest.withUnsafeBytes { bytes in bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } & ((1 << 53) - 1)
    }
}
