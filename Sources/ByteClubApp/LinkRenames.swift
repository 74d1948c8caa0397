import Foundation
import ClubKit
import Markdown
import Remote
import Synchronization
import TerminalUI

/// Renames and moves keep links: after a note is renamed (`R`), or a note or a folder moved
/// (`m`, a folder's `R`, a row dragged onto a folder), the notes whose links led into it, in any
/// form (`[[Plan A]]`, `[[Old Stuff/Plan A]]`, `[x](<Old Stuff/Plan A.md>)`: the core's
/// ``LinkRewrite``, the command line's rules of resolution), are counted from the index's copies
/// and the user is asked whether to update them. Each update is an ordinary save over the rev
/// just read (`update` mode): a note someone changed in between conflicts and is reported and
/// left as it was, never overwritten. The status bar says how many were updated.
///
/// A helper: a rename or a move in the notes list hands it the old and new places.
@MainActor
final class LinkRenames {
    let context: AppContext
    let noteIndex: NoteIndex
    let refresher: Refresher

    init(context: AppContext, noteIndex: NoteIndex, refresher: Refresher) {
        self.context = context
        self.noteIndex = noteIndex
        self.refresher = refresher
    }

    /// What a linking note holds: its path and how many links into what moved, from the index's copy.
    struct LinkUpdate: Sendable {
        var path: String
        var links: Int
    }

    /// `R` renamed a note: its links, in every form, as a move within its folder; the question
    /// names the titles.
    func renamed(_ old: RemoteEntry, to new: RemoteEntry) {
        let oldTitle = NoteLinks.title(ofPath: old.name), newTitle = NoteLinks.title(ofPath: new.name)
        relink(from: old.path, to: new.path, titles: oldTitle != newTitle ? (oldTitle, newTitle) : nil)
    }

    /// A note or a folder moved from `from` to `to` (club paths).
    func moved(from: String, to: String) {
        relink(from: from, to: to, titles: nil)
    }

    /// The rewrite of the links into `from` once it moved to `to`, over the notes list as it was
    /// before (the list may have caught up with the move already, or not).
    func linkRewrite(from: String, to: String) -> LinkRewrite {
        LinkUpdates.rewrite(from: from, to: to, notes: context.state.notes.entries, root: context.configuration.layout.folder,
                            aliases: noteIndex.aliases)
    }

    /// The notes whose links into `from` would now lead nowhere (or elsewhere), and the moved
    /// notes' own relative links, are counted off the UI queue; then the user is asked.
    private func relink(from: String, to: String, titles: (old: String, new: String)?) {
        guard from != to, let index = noteIndex.index else { return }
        let notes = context.state.notes.entries, aliases = noteIndex.aliases
        let root = context.configuration.layout.folder
        // A link names the place as written: plain, or percent-encoded in a Markdown link.
        let name = NoteLinks.title(ofPath: from).lowercased()
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)?.lowercased() ?? name
        let raw = NoteLinks.title(ofPath: from), rawEncoded = raw.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? raw
        context.effects.perform({ () async throws(RemoteError) -> (updates: [LinkUpdate], rewrite: LinkRewrite) in
            let rewrite = LinkUpdates.rewrite(from: from, to: to, notes: notes, root: root, aliases: aliases)
            // The notes that name the place (from the index, in one pass), and those that moved with it.
            var named = index.paths(containing: [raw, rawEncoded]).map { Set($0.map { $0.lowercased() }) }
            // SQLite lowers ASCII only: the notes linked to a moved note in another case ("ÉTÉ") too.
            if named != nil, let linking = try? index.backlinks(to: from, root: root, limit: 10_000) {
                named?.formUnion(linking.map { $0.path.lowercased() })
            }
            var updates: [LinkUpdate] = []
            for was in rewrite.before.entries.map(\.path) {
                let now = rewrite.now(was)
                let moved = was.lowercased() != now.lowercased()
                if let named, !moved, !named.contains(was.lowercased()) { continue }
                // The index knows a note by the path it had when it read it.
                guard let text = (index.indexedCopy(of: was) ?? index.indexedCopy(of: now))?.text, moved || Self.mayName(text, name, encoded)
                else { continue }
                let count = rewrite.rewrite(text, wasAt: was).count
                if count > 0 { updates.append(LinkUpdate(path: now, links: count)) }
            }
            return (updates.sorted { $0.path < $1.path }, rewrite)
        }) { [weak self] result in
            guard let self, case .success(let (updates, rewrite)) = result, !updates.isEmpty else { return }
            let links = updates.reduce(0) { $0 + $1.links }
            let body: [String]
            if let titles {
                let notes = updates.count == 1 ? "1 note links" : "\(updates.count) notes link"
                let (old, new) = (TerminalSafe.escape(titles.old), TerminalSafe.escape(titles.new))
                body = ["\(notes) to [[\(old)]] (\(links) link\(links == 1 ? "" : "s")).", "Update them to [[\(new)]]?"]
            } else {
                let notes = updates.count == 1 ? "1 note links" : "\(updates.count) notes link"
                let shown = TerminalSafe.escape(String(from.dropFirst(root.count + 1)))
                body = ["\(notes) into \"\(shown)\" by its path (\(links) link\(links == 1 ? "" : "s")).", "Update them to its new place?"]
            }
            let modal = Modal(title: "Update links", body: body, buttons: ["Update", "Leave them"])
            self.context.ask { DialogLayer(modal, selected: 0) { [weak self] choice in
                guard choice == 0, let self else { return }
                self.updateLinks(updates.map(\.path), rewrite)
            } }
        }
    }

    /// Whether `text` may hold a link that names `name` (cheap, before the links are read).
    nonisolated static func mayName(_ text: String, _ name: String, _ encoded: String) -> Bool {
        let lower = text.lowercased()
        return lower.contains(name) || lower.contains(encoded)
    }

    /// Reads each note (at its path now), rewrites its links into what moved, and saves it over
    /// the rev it read, one at a time.
    func updateLinks(_ paths: [String], _ rewrite: LinkRewrite) {
        updateLinks(paths, rewriting: { text, path in rewrite.rewrite(text, wasAt: rewrite.was(path)) })
    }

    /// ``updateLinks(_:_:)`` once `from` moved to `to`.
    func updateLinks(_ paths: [String], movedFrom from: String, to: String) {
        updateLinks(paths, linkRewrite(from: from, to: to))
    }

    /// Reads each note, rewrites its links with `rewrite`, and saves it over the rev it read
    /// (``LinkUpdates``), with the spinner, then says what it did.
    private func updateLinks(_ paths: [String], rewriting rewrite: @escaping @Sendable (_ text: String, _ path: String) -> (text: String, count: Int)) {
        let writes = context.writes, index = noteIndex.index
        context.update {
            $0.beginRequest()
            $0.message = StatusMessage("Updating the links in \(paths.count) note\(paths.count == 1 ? "" : "s")…")
        }
        // The notes saved, as the server answered: the list takes their new revs (no listing).
        let saved = SavedEntries()
        context.perform({ () async throws(RemoteError) -> LinkUpdates.Report in
            // The index has the new text at once: the next rename or move counts from it.
            try await writes.rewriteLinks(in: paths, saved: { entry, text in
                try? index?.upsert(entry, text: text)
                saved.add(entry)
            }, rewrite: rewrite)
        }) { [weak self] result in
            guard let self else { return }
            self.context.update { $0.endRequest() }
            switch result {
            case .success(let report): self.context.say(report.isComplete ? StatusMessage(report.summary) : .error(report.summary))
            case .failure(let error): self.context.say(.error("Could not update the links: \(error.message)"))
            }
            self.refresher.took(.notes, saved.changes)
        }
    }
}

/// The notes a link update saved, gathered as it goes (its callback runs off the UI queue).
private final class SavedEntries: Sendable {
    private let entries = Mutex<[RemoteChange]>([])
    func add(_ entry: RemoteEntry) { entries.withLock { $0.append(.updated(entry)) } }
    var changes: [RemoteChange] { entries.withLock { $0 } }
}
