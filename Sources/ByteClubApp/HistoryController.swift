import Foundation
import ClubKit
import Remote
import TerminalUI

/// `H` on the notes list: a note's history. Fetches the revisions and the texts the view
/// compares, names their authors, and restores a revision (asking first). A restore is a new
/// revision on the server, so the text it replaces stays in the history.
@MainActor
final class HistoryController {
    /// How many revisions the view lists (the server keeps 100 per note).
    static let limit = 100

    let context: AppContext
    let refresher: Refresher
    let live: LiveUpdates

    init(context: AppContext, refresher: Refresher, live: LiveUpdates) {
        self.context = context
        self.refresher = refresher
        self.live = live
    }

    /// Opens the history of the selected note (drafts of new notes have none).
    func openSelected() {
        guard case .note(let entry, _)? = context.state.selectedNoteItem(in: context.model.noteListing) else {
            context.say(StatusMessage("Select a note to see its history"))
            return
        }
        open(entry)
    }

    func open(_ entry: RemoteEntry) {
        close()
        // The view (HistoryLayer) is on screen while the state holds the history.
        context.update { $0.history = NoteHistory(entry: entry) }
        load(entry)
    }

    /// A key of the history view.
    func perform(_ action: HistoryLayer.Action) {
        switch action {
        case .restore: confirmRestore()
        case .close: close()
        }
    }

    func close() {
        if context.state.history != nil { context.update { $0.history = nil } }
    }

    /// The revisions, then the current text and the selected revision's.
    private func load(_ entry: RemoteEntry) {
        let store = context.store
        context.perform({ () async throws(RemoteError) in try await store.revisions(entry.path, limit: Self.limit) }) { [weak self] result in
            guard let self, self.context.state.history?.entry.pathLower == entry.pathLower else { return }
            switch result {
            case .success(let answer):
                let known = self.live.names.compactMapValues { $0 }
                self.context.update {
                    $0.history?.revisions = answer.entries
                    $0.history?.writtenWith = answer.writtenWith
                    $0.history?.isLoading = false
                    $0.history?.names = known
                }
                self.nameAuthors(answer.entries.flatMap(answer.writers(of:)))
                if let newest = answer.entries.first { self.fetch(newest) }
                self.fetchSelected()
            case .failure(.notSupported):
                // WebDAV: one line, on the one row there is, not an error about an endpoint.
                self.context.update {
                    $0.history?.isLoading = false
                    $0.history?.error = "This server keeps no earlier versions of its notes: only the current text"
                }
            case .failure(let error):
                self.context.update {
                    $0.history?.isLoading = false
                    $0.history?.error = "Could not list the revisions: \(error.message)"
                }
            }
        }
    }

    /// Asks the server for the names of authors (account ids) not known yet.
    private func nameAuthors(_ authors: [String]) {
        let known = context.state.history?.names ?? [:]
        let unknown = Array(Set(authors.filter { known[$0] == nil }))
        guard !unknown.isEmpty else { return }
        let store = context.store
        context.perform({ () async throws(RemoteError) -> [String: String] in
            var found: [String: String] = [:]
            for id in unknown { if let name = try? await store.account(id: id).displayName { found[id] = name } }
            return found
        }) { [weak self] result in
            guard let self, case .success(let found) = result else { return }
            self.live.names.merge(found.mapValues { Optional($0) }) { _, new in new }
            self.context.update { $0.history?.names.merge(found) { _, new in new } }
        }
    }

    func fetchSelected() {
        guard let selected = context.state.history?.selected else { return }
        fetch(selected)
    }

    /// One revision's text, once.
    private func fetch(_ revision: RemoteEntry) {
        guard let rev = revision.rev, context.state.history?.texts[rev] == nil else { return }
        let store = context.store
        context.perform({ () async throws(RemoteError) in try await store.read(rev: rev) }) { [weak self] result in
            guard let self, self.context.state.history != nil else { return }
            switch result {
            case .success(let (data, _)):
                self.context.update { $0.history?.texts[rev] = String(decoding: data, as: UTF8.self) }
            case .failure(let error):
                self.context.update { $0.history?.error = "Could not fetch that revision: \(error.message)" }
            }
        }
    }

    /// `Enter`: restore the selected revision, once confirmed.
    private func confirmRestore() {
        guard let history = context.state.history, !history.isRestoring, let revision = history.selected, let rev = revision.rev else { return }
        guard rev != history.revisions.first?.rev else {
            context.say(StatusMessage("That is already the current text"))
            return
        }
        let when = revision.modified.map { NoteHistory.stamp($0, format: context.configuration.format) } ?? "an earlier time"
        let title = TerminalSafe.escape(ClubLayout.title(of: history.entry.name))
        let modal = Modal(title: "Restore this revision?",
                          body: ["Make the text of \(when) by \(TerminalSafe.escape(history.author(of: revision))) the current text of \"\(TerminalSafe.escape(title))\"?",
                                 "The current text stays in the history."],
                          buttons: ["Restore", "Cancel"])
        // Cancel is the default: Enter twice must not restore by reflex.
        context.ask { DialogLayer(modal, selected: 1) { [weak self] choice in
            if choice == 0 { self?.restore(history.entry, rev: rev, when: when) }
        } }
    }

    private func restore(_ entry: RemoteEntry, rev: String, when: String) {
        context.update {
            $0.history?.isRestoring = true
            $0.beginRequest()
        }
        let writes = context.writes
        let title = TerminalSafe.escape(ClubLayout.title(of: entry.name))
        context.perform({ () async throws(RemoteError) -> RemoteEntry in
            // The command line's `restore` too: the text brought back may name tags in its front
            // matter, and they become club tags.
            try await writes.restore(entry.path, rev: rev)
        }) { [weak self] result in
            guard let self else { return }
            self.context.update {
                $0.endRequest()
                $0.history?.isRestoring = false
            }
            switch result {
            case .success(let restored):
                self.close()
                self.context.say(StatusMessage("Restored \"\(TerminalSafe.escape(title))\" to its text of \(when)"))
                self.refresher.took(.notes, [.updated(restored)], select: restored.pathLower)
            case .failure(let error):
                self.context.say(.error("Could not restore \"\(TerminalSafe.escape(title))\": \(error.message)"))
            }
        }
    }
}
