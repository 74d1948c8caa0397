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
    let notes: any NoteOpening
    let live: LiveUpdates
    /// The index, once opened (off the UI queue, at start).
    var index: (any NoteSearchIndex)?
    /// Opens the index, off the UI queue; nil when the app keeps no cache (some tests).
    let openIndex: (@Sendable () throws(RemoteError) -> any NoteSearchIndex)?
    /// The results screen while a note it opened is in the editor: `Esc` there brings it back.
    private var parked: SearchState?
    /// The notes listing version the index was last brought current against.
    var syncedVersion = -1
    /// Whether a sync runs now (one at a time; a change meanwhile runs another after it).
    var isSyncing = false
    /// Failures of the sync in a row: the wait before the next try, 1 s doubling to 30 s.
    var syncBackoff = Backoff(first: 1, longest: SearchController.longestRetry)
    /// Whether the index was started afresh at open and is being filled again.
    var rebuilding = false
    /// When the status bar's indexing figure last changed (``UIEffects/now()``).
    var lastProgress = 0.0
    /// Called on the UI queue after the index took in changes (tests wait on it).
    var onIndexed: (@MainActor (Int) -> Void)?
    /// Called on the UI queue after the index took in changes: the backlinks panel asks again.
    var onIndexChanged: (@MainActor () -> Void)?

    init(context: AppContext, notes: any NoteOpening, live: LiveUpdates,
         openIndex: (@Sendable () throws(RemoteError) -> any NoteSearchIndex)?) {
        self.context = context
        self.notes = notes
        self.live = live
        self.openIndex = openIndex
    }

    var state: AppState { context.state }

    // MARK: The results screen

    /// `Ctrl-F`: the results screen, with the last query and its hits if there was one.
    func open() {
        guard state.search == nil else { return }
        if let note = state.note, note.phase != .loading { return }
        let search = parked ?? SearchState()
        parked = nil
        show(search)
    }

    /// Ctrl-F in the editor's find bar: the same text searched in every note, over the editor.
    func open(query: String) {
        guard state.search == nil else { return }
        var search = SearchState()
        search.query = TextInputState(text: query)
        parked = nil
        show(search)
    }

    /// The results screen (SearchLayer) is on screen while the state holds the search.
    private func show(_ search: SearchState) {
        context.update { $0.search = search }
        if index == nil {
            context.say(StatusMessage(openIndex == nil ? "Search needs the club's cache folder" : "Opening the search index…"))
        }
        // The index may have changed while the screen was away.
        if !search.query.text.isEmpty { refreshResults() }
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
        case .run(let query, let generation): run(query, generation: generation)
        case .open(let hit): openHit(hit)
        case .close: close()
        }
    }

    /// Esc on the results: back to the notes list (the query is forgotten).
    func close() {
        parked = nil
        if state.search != nil { context.update { $0.search = nil } }
    }

    /// Runs the query off the UI queue; its answer comes back through ``SearchState/deliver(_:generation:)``.
    private func run(_ query: String, generation: Int) {
        guard let index else {
            // Not open yet: the answer is "nothing yet", and the query runs again once it is.
            deliver(.success(.init(query: query, results: [])), generation: generation)
            return
        }
        context.effects.perform({ () async throws(RemoteError) in
            try index.search(query, limit: SearchState.limit)
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
        guard let entry = state.notes.entries.first(where: { $0.pathLower == key }) else {
            context.say(.error("\"\(TerminalSafe.escape(ClubLayout.title(of: hit.name)))\" is no longer in the club"))
            refreshResults()
            return
        }
        if let note = state.note, note.phase != .loading {
            // Opened from the editor's find bar: the note open there gives way, unless it has edits.
            guard !note.isModified else {
                context.say(.error("Save (Ctrl-S) or close (Esc) the open note first"))
                return
            }
            notes.closeEditor()
        }
        parked = state.search
        context.update { $0.search = nil }
        notes.open(entry, at: hit)
    }

    /// `Esc` in the editor of a note opened from the results (unchanged): the results again.
    func backToResults() {
        guard parked != nil else { return }
        open()
    }

    /// Whether `Esc` in the editor goes back to the results.
    var hasParkedResults: Bool { parked != nil }
}

/// The role it plays for other controllers (AppRoles.swift).
extension SearchController: NoteSearching {}
