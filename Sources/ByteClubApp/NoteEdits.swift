import Foundation
import Remote
import TerminalUI

/// What follows an edit of the open note, wherever it came from (a key in the editor, a photo's
/// reference the rendered view inserts, the user's own editor): search hits mode ends, the
/// version moves on, and the text is journalled to its ``Draft`` at most ``journalDelay`` later
/// (and always before a save is sent); a draft is removed only once the server has confirmed
/// the save.
///
/// A helper: it writes the open note's state and its draft, and calls no controller.
@MainActor
final class NoteEdits {
    /// How long an edit may wait before it is written to its draft.
    static let journalDelay: Duration = .milliseconds(300)

    let context: AppContext
    /// Whether a journal write is scheduled.
    private var journalScheduled = false
    /// A background journal write is under way; another was asked for meanwhile.
    private var journalWriting = false
    private var journalAgain = false

    init(context: AppContext) {
        self.context = context
    }

    var state: AppState { context.state }
    var configuration: AppConfiguration { context.configuration }

    /// Types `text` at the editor's cursor, as a paste.
    func insert(_ text: String) {
        var outcome: NoteEditorOutcome?
        context.model.updateQuietly { outcome = $0.note?.editor.handle(.paste(text)) }
        if case .edited? = outcome { edited() } else { context.compositor.setNeedsRedraw() }
    }

    /// After an edit: search hits mode ends, the version moves on, a journal write soon; or,
    /// when undo brought back the text the server has, `[+]` goes, and so does the draft.
    func edited() {
        endSearchHits()
        guard let session = state.note else { return }
        if session.editorCleanIsSaved, !session.editor.isModified {
            configuration.drafts?.remove(session.draftID)
            // A new number, never one a save under way started from: that save's answer must
            // not take this text for the one it sent.
            let clean = session.version + 1
            context.update {
                $0.note?.version = clean
                $0.note?.savedVersion = clean
                $0.note?.journalledVersion = clean
                $0.drafts.removeAll { $0.id == session.draftID }
            }
            return
        }
        context.update { $0.note?.version += 1 }
        scheduleJournal()
    }

    /// After every edit: a journal write soon, off the UI queue.
    private func scheduleJournal() {
        guard !journalScheduled else { return }
        journalScheduled = true
        context.effects.after(Self.journalDelay) { [weak self] in
            self?.journalScheduled = false
            self?.journalInBackground()
        }
    }

    /// Writes the open note's draft on the drafts' queue: only the lines are taken here (a
    /// copy-on-write share, nothing copied), and the text, its JSON and the durable write are
    /// made there, so typing in a 1 MiB note never waits for its draft. One write at a time; edits
    /// made meanwhile are written by the next. A failure is said, as for ``journal()``.
    private func journalInBackground() {
        guard let open = state.note, open.phase != .loading, !open.isReadOnly,
              open.version != open.journalledVersion, let drafts = configuration.drafts else { return }
        guard !journalWriting else {
            journalAgain = true
            return
        }
        journalWriting = true
        let session = claimDraft(open, in: drafts)
        let lines = session.editor.body.lineClusters
        let empty = session.draft(at: configuration.format.now(), body: "")
        let version = session.version
        drafts.saveInBackground({
            var draft = empty
            draft.body = String(decoding: TextBuffer.utf8(of: lines), as: UTF8.self)
            return draft
        }) { [weak self, hop = context.effects.hop] error in
            hop {
                guard let self else { return }
                self.journalWriting = false
                if let error {
                    self.context.logger.error("cannot write the draft: \(error)")
                    self.context.say(.error("Could not write the draft: \(error.localizedDescription)"))
                } else {
                    self.context.model.updateQuietly { state in
                        guard state.note?.draftID == empty.id, let done = state.note?.journalledVersion, done < version else { return }
                        state.note?.journalledVersion = version
                    }
                }
                if self.journalAgain {
                    self.journalAgain = false
                    self.scheduleJournal()
                }
            }
        }
    }

    /// Writes the open note's text to its draft if it changed since the last write. Called after
    /// every edit (debounced), before every save, and on the way out.
    @discardableResult
    func journal() -> Bool {
        guard let open = state.note, open.phase != .loading, !open.isReadOnly,
              open.version != open.journalledVersion, let drafts = configuration.drafts else { return true }
        let session = claimDraft(open, in: drafts)
        do {
            try drafts.save(session.draft(at: configuration.format.now()))
            context.model.updateQuietly { $0.note?.journalledVersion = session.version }
            return true
        } catch {
            context.logger.error("cannot write the draft: \(error)")
            context.say(.error("Could not write the draft: \(error.localizedDescription)"))
            return false
        }
    }

    /// The session as it journals: a note opened from the server that has never journalled takes
    /// a draft of its own when its note's draft file is there already, written by another
    /// process since (`byteclub edit` keeping its text after a conflict, another app): that
    /// text is never written over, and both drafts stay.
    private func claimDraft(_ session: NoteSession, in drafts: DraftStore) -> NoteSession {
        guard session.journalledVersion == 0, let path = session.entry?.path, session.draftID == Draft.id(forPath: path),
              drafts.load(session.draftID) != nil else { return session }
        var claimed = session
        claimed.draftID = Draft.newID()
        context.model.updateQuietly { state in
            if state.note?.draftID == session.draftID, state.note?.generation == session.generation { state.note?.draftID = claimed.draftID }
        }
        context.logger.info("a draft of \(path) was written by another process; this one is kept apart", metadata: ["draft": "\(claimed.draftID)"])
        return claimed
    }

    /// The first edit or cursor move after a search: `n` and `N` are letters again.
    func endSearchHits() {
        guard let session = state.note, let matches = session.searchMatches else { return }
        context.model.updateQuietly {
            $0.note?.searchMatches = nil
            if $0.note?.banner == Navigator.searchBanner(matches) { $0.note?.banner = nil }
        }
    }
}
