import Foundation
import Remote
import TerminalUI

/// `Ctrl-F` on the notes list: full-text search over every note of the club, from an index
/// kept on this machine (SearchController+Index.swift keeps it current).
///
/// The results screen is a layer (``SearchLayer``) drawn from ``AppState/search``; its keys go
/// through ``SearchState``, whose actions this carries out: queries run off the UI queue
/// through ``UIEffects`` and their answers come back on it; `Enter` opens the note in the
/// editor at the match, in "search hits" mode (the editor's NoteOpening role), and `Esc` there
/// comes back here with the same query and selection.
@MainActor
final class SearchController {
    let context: AppContext
    let navigator: Navigator
    let noteIndex: NoteIndex
    let live: LiveUpdates

    init(context: AppContext, navigator: Navigator, noteIndex: NoteIndex, live: LiveUpdates) {
        self.context = context
        self.navigator = navigator
        self.noteIndex = noteIndex
        self.live = live
    }

    var state: AppState { context.state }

    // MARK: The results screen

    /// `Ctrl-F`: the results screen, with the last query and its hits if there was one.
    func open() {
        guard state.search == nil else { return }
        if let note = state.note, note.stage != .loading { return }
        var search = state.parkedSearch ?? SearchState()
        search.folder = state.notesFolder.isRoot ? nil : state.notesFolder.path
        show(search)
    }

    /// Ctrl-F in the editor's find bar: the same text searched in every note, over the editor.
    func open(query: String) {
        guard state.search == nil else { return }
        var search = SearchState()
        search.query = TextInputState(text: query)
        show(search)
    }

    /// The results screen (SearchLayer) is on screen while the state holds the search. The
    /// index may have been written by `byteclub search` since the app last synced it: asked
    /// now, and brought current if so (the results ask again when that changed anything).
    private func show(_ search: SearchState) {
        context.update {
            $0.search = search
            $0.parkedSearch = nil
        }
        noteIndex.lookForWritesElsewhere()
    }

    /// The results came on screen (opened here, from the editor's find bar, or back from a
    /// note): the index may have changed while the screen was away.
    func shown() {
        guard state.search != nil else { return }
        if noteIndex.index == nil {
            context.say(StatusMessage(noteIndex.openIndex == nil ? "Search needs the club's cache folder" : "Opening the search index…"))
        }
        if state.search?.query.text.isEmpty == false { refreshResults() }
    }

    /// The index took in changes: results on screen ask again.
    func indexChanged() {
        if state.search?.query.text.isEmpty == false { refreshResults() }
    }

    /// A key on the results screen; returns whether it was taken.
    func handle(_ key: Key) -> Bool {
        guard var search = state.search else { return false }
        guard SearchState.takes(key) else { return false }
        let action = search.handle(key)
        context.update { $0.search = search }
        perform(action)
        return true
    }

    private func perform(_ action: SearchState.Action) {
        switch action {
        case .none: break
        case .run(let query, let generation, let folder): run(query, generation: generation, folder: folder)
        case .open(let hit): openHit(hit)
        case .close: close()
        }
    }

    /// Esc on the results: back to the notes list (the query is forgotten).
    func close() {
        if state.search != nil || state.parkedSearch != nil {
            context.update {
                $0.search = nil
                $0.parkedSearch = nil
            }
        }
    }

    /// Runs the query off the UI queue; its answer comes back through ``SearchState/deliver(_:generation:)``.
    private func run(_ query: String, generation: Int, folder: String?) {
        guard let index = noteIndex.index else {
            // Not open yet: the answer is "nothing yet", and the query runs again once it is.
            deliver(.success(.init(query: query, results: [])), generation: generation)
            return
        }
        context.effects.perform({ () async throws(RemoteError) in
            try index.search(query, limit: SearchState.limit, under: folder)
        }) { [weak self] result in
            self?.deliver(result.map { SearchState.Answer(query: query, results: $0) }, generation: generation)
        }
    }

    /// Authors by their names, as the lists show them: the names not known yet are asked of the
    /// server first (once each), and an id the server cannot name is shown as no one, never as
    /// `dbid:…`.
    private func deliver(_ result: Result<SearchState.Answer, RemoteError>, generation: Int) {
        let authors = (try? result.get())?.results.compactMap(\.modifiedBy) ?? []
        live.withNames(of: authors) { [weak self] in self?.deliverNamed(result, generation: generation) }
    }

    private func deliverNamed(_ result: Result<SearchState.Answer, RemoteError>, generation: Int) {
        guard var search = state.search else { return }
        let named = result.map { answer in
            SearchState.Answer(query: answer.query, results: answer.results.map { hit in
                var hit = hit
                hit.modifiedBy = live.name(of: hit.modifiedBy)
                return hit
            })
        }
        let next = search.deliver(named, generation: generation)
        context.update { $0.search = search }
        perform(next)
    }

    /// The index changed: the hits on screen are asked for again.
    func refreshResults() {
        guard var search = state.search else { return }
        let action = search.indexChanged()
        context.update { $0.search = search }
        perform(action)
    }

    // MARK: Opening a hit

    /// `Enter` on a hit: the note in the editor with the cursor on the match.
    private func openHit(_ hit: SearchResult) {
        let key = hit.path.lowercased()
        guard let entry = state.notes.entries.firstPosition(ofPathLower: key).map({ state.notes.entries[$0] }) else {
            context.say(.error("\"\(TerminalSafe.escape(ClubLayout.title(of: hit.name)))\" is no longer in the club"))
            refreshResults()
            return
        }
        if let note = state.note, note.stage != .loading {
            // Opened from the editor's find bar: the note open there gives way, and stays open
            // behind the hit when it has unsaved edits.
            guard navigator.editorCanLeave() else { return }
            navigator.leaveOpenNote()
        }
        // A hit in a note kept open: that note comes back as it was, its edits in it.
        if navigator.showOpen(entry) {
            context.update { $0.search = nil }
            return
        }
        context.update {
            $0.parkedSearch = $0.search
            $0.search = nil
        }
        navigator.open(entry, at: hit)
    }
}
