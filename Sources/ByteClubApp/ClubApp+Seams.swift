import Foundation
import Markdown
import Remote
import TerminalUI

/// What the executable, the tests and the benchmarks reach the app through, and the main
/// screen's intents, each handed to the controller or helper that carries it out.
extension ClubApp {
    // MARK: What the executable, the tests and the benchmarks drive

    public func select(_ tab: Tab) { tabs.select(tab) }
    public func refresh(_ tab: Tab, select path: String? = nil) { refresher.refresh(tab, select: path) }
    /// `q`: with an agent to hand running transfers to, the background question; else the
    /// quit question (or none).
    public func requestQuit() {
        if state.runningTransfers > 0, background.offerBackground() { return }
        tabs.requestQuit()
    }

    /// After every change of the state: a frame, and what follows the state, as ratatui's loop
    /// draws from it. The rendered view goes to a note's place once its text is in; the screen's
    /// transitions (results or the view come on screen, the notes list changed) are routed as
    /// events; the index follows the notes list (cheap when it did not move).
    func stateChanged() {
        compositor.setNeedsRedraw()
        noteView.stateChanged()
        let now = AppEvent.Screen(state)
        let events = AppEvent.transitions(from: screenShown, to: now)
        screenShown = now
        for event in events { route(event) }
        externalEdit.stateChanged()
        noteIndex.listingChanged()
        liveNotes.follow()
    }

    /// Hands `event` to whoever acts on it: the composition root is the one place that knows
    /// which controller that is.
    func route(_ event: AppEvent) {
        switch event {
        case .indexChanged:
            search.indexChanged()
            noteView.refreshBacklinks()
            links.indexChanged()
        case .closeNoteAfterView: notes.closeEditor()
        case .searchShown: search.shown()
        case .noteViewShown, .notesListChanged: noteView.refreshBacklinks()
        case .saveAnswered(let answer): notes.saves.answered(answer)
        case .lateConflict(let report): notes.saves.lateConflict(report)
        }
    }

    /// Writes the open note's text to its draft (on the way out too). Returns false if it failed.
    @discardableResult
    public func journal() -> Bool { edits.journal() }

    // MARK: The rendered view's seams to links between notes (the navigator and the index
    // answer when unset; tests may put their own)

    /// Follows a link to a note from the rendered view (`Enter`, a click).
    public var onFollowNoteLink: (@MainActor (NoteLinkTarget) -> Void)? {
        get { noteView.onFollowNoteLink }
        set { noteView.onFollowNoteLink = newValue }
    }
    /// The notes that link to the note at a path, listed under the rendered view.
    public var backlinks: (@MainActor (_ path: String, _ deliver: @escaping @MainActor ([LinkingNote]) -> Void) -> Void)? {
        get { noteView.backlinks }
        set { noteView.backlinks = newValue }
    }
    /// Whether a linked note exists (a missing one is drawn as such); nil: all exist.
    public var noteExists: (@MainActor (NoteLinkTarget) -> Bool)? {
        get { noteView.noteExists }
        set { noteView.noteExists = newValue }
    }

    /// Whether the search index is open and holds the notes list as it is now (what a bench
    /// waits for before it times what needs every note indexed).
    public var indexIsCurrent: Bool {
        noteIndex.index != nil && !noteIndex.isSyncing && noteIndex.syncedVersion == state.notes.version && state.indexing == nil
    }

    /// Asks the rendered view for its backlinks again (after the index took in a change).
    public func refreshBacklinks() { noteView.refreshBacklinks() }

    /// Uploads `file` to the photos folder, with the modal.
    public func upload(_ file: URL) { transfers.upload(file) }

    /// On the way out: downloads pause with their resume data, uploads stop.
    public func stopTransfersForExit() { transfers.stopTransfersForExit() }

    /// The notes list's items: drafts of notes the server does not have, then the notes.
    public var noteItems: NoteItems { model.noteListing.items }
    public var thumbnails: Thumbnails { photos.thumbnails }
    public var previews: Thumbnails { photos.previews }
    /// Progress reports that reached the UI queue (the benchmark counts them).
    public var transferProgressEvents: Int { transfers.progressEvents }
}

extension ClubApp: MainScreenDelegate {
    public func screen(perform intent: MainScreen.Intent) {
        switch intent {
        case .select(let tab): tabs.select(tab)
        case .shell(.refresh):
            if state.tab == .photos { photos.retryPictures() }
            // Drafts another process kept since (`byteclub edit` after a conflict) are listed too.
            if state.tab == .notes { refresher.reloadDrafts() }
            refresher.refresh(state.tab)
        case .shell(.quit): requestQuit()
        case .shell(.transfers): photos.showTransfersPanel()
        case .shell: break
        case .notes(.open): notes.openSelected()
        case .notes(.openInEditor): externalEdit.openSelectedInExternalEditor()
        case .notes(.openWithSystem): notes.openSelectedWithSystem()
        case .notes(.render): noteView.openSelected()
        case .notes(.new): notes.newNote()
        case .notes(.delete): files.deleteSelected()
        case .notes(.rename): files.renameSelected()
        case .notes(.history): history.openSelected()
        case .notes(.share): share.shareSelected(.notes)
        case .notes(.tags): tags.editSelected()
        case .notes(.pin): tags.togglePinSelected()
        case .notes(.search): search.open()
        case .notes(.newFolder): files.newFolder()
        case .notes(.moveToFolder): files.moveSelectedToFolder()
        case .notes(.upFolder): files.upFolder()
        case .notes(.switchNote): openNotes.chooseNote()
        case .notes(.drop(let from, let onto)): files.drop(from: from, onto: onto)
        case .photos(.download): photos.downloadSelected()
        case .photos(.upload): photos.chooseUpload()
        case .photos(.delete): photos.deleteSelected()
        case .photos(.preview): photos.togglePreview()
        case .photos(.view):
            // A double-click on an album opens it, as Enter does.
            if case .album? = state.selectedPhotoItem { photos.downloadSelected() } else { viewer.open() }
        case .photos(.transfers): transfers.showBackgroundTransfer()
        case .photos(.share): share.shareSelected(.photos)
        case .photos(.upAlbum): photos.upAlbum()
        }
    }
}

extension ClubApp {
    /// Waits until the app's own queues have done what they were given (a note's own document
    /// started, a draft written): what they hand back to the UI queue has been handed back. The
    /// simulation settles each member's app with it before the next step (issue 70).
    public nonisolated static func waitForBackgroundWork() {
        NoteEdits.waitForStarts()
        DraftStore.waitForWrites()
    }
}
