import Foundation
import Markdown
import Remote
import TerminalUI

/// Renames keep links: after a note is renamed, the notes that link to its old title (from the
/// index) are counted, and the user is asked whether to update them. Each update is an ordinary
/// save over the rev just read (`update` mode): a note someone changed in between conflicts and
/// is reported and left as it was, never overwritten. The status bar says how many were updated.
///
/// A helper: a rename in the notes list, or one the outbox sent, hands it the note's old and new
/// entries.
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

    /// What a linking note holds: its path and how many `[[old title]]` links, from the index's copy.
    struct LinkUpdate: Sendable {
        var path: String
        var links: Int
    }

    /// What updating the links did.
    struct LinkUpdateReport: Sendable {
        var updated: [String] = []
        /// Changed by someone between the read and the save: left as it was.
        var conflicted: [String] = []
        var failed: [(name: String, why: String)] = []
    }

    /// A note was renamed in the editor: the notes whose `[[old title]]` links would now
    /// lead nowhere are counted off the UI queue, then the user is asked.
    func renamed(_ old: RemoteEntry, to new: RemoteEntry) {
        let oldTitle = NoteLinks.title(ofPath: old.name), newTitle = NoteLinks.title(ofPath: new.name)
        guard oldTitle != newTitle, let index = noteIndex.index else { return }
        let oldPath = old.path
        context.effects.perform({ () async throws(RemoteError) -> [LinkUpdate] in
            try index.backlinks(to: oldPath, limit: 10_000).compactMap { note in
                guard let text = index.indexedCopy(of: note.path)?.text else { return nil }
                let count = NoteLinks.renamingWikiLinks(in: text, from: oldTitle, to: newTitle).count
                return count > 0 ? LinkUpdate(path: note.path, links: count) : nil
            }
        }) { [weak self] result in
            guard let self, case .success(let updates) = result, !updates.isEmpty else { return }
            self.offerLinkUpdates(updates, from: oldTitle, to: newTitle)
        }
    }

    private func offerLinkUpdates(_ updates: [LinkUpdate], from oldTitle: String, to newTitle: String) {
        let links = updates.reduce(0) { $0 + $1.links }
        let notes = updates.count == 1 ? "1 note" : "\(updates.count) notes"
        let (old, new) = (TerminalSafe.escape(oldTitle), TerminalSafe.escape(newTitle))
        let modal = Modal(title: "Update links", body: [
            "\(notes) link\(updates.count == 1 ? "s" : "") to [[\(old)]] (\(links) link\(links == 1 ? "" : "s")).",
            "Update them to [[\(new)]]?",
        ], buttons: ["Update", "Leave them"])
        context.ask { DialogLayer(modal, selected: 0) { [weak self] choice in
            guard choice == 0, let self else { return }
            self.updateLinks(updates.map(\.path), from: oldTitle, to: newTitle)
        } }
    }

    /// Reads each note, renames its links, and saves it over the rev it read, one at a time.
    func updateLinks(_ paths: [String], from oldTitle: String, to newTitle: String) {
        updateLinks(paths) { text, _ in NoteLinks.renamingWikiLinks(in: text, from: oldTitle, to: newTitle) }
    }

    /// A note or a folder moved from `from` to `to` (club paths): the notes whose links into it
    /// by path (or whose own relative links, when they moved with it) would now lead nowhere are
    /// counted off the UI queue, then the user is asked.
    func moved(from: String, to: String) {
        guard let index = noteIndex.index else { return }
        let root = context.configuration.layout.folder
        let paths = context.state.notes.entries.map(\.path)
        // A link names the place as written: plain, or percent-encoded in a Markdown link.
        let name = NoteLinks.title(ofPath: from).lowercased()
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)?.lowercased() ?? name
        let raw = NoteLinks.title(ofPath: from), rawEncoded = raw.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? raw
        context.effects.perform({ () async throws(RemoteError) -> [LinkUpdate] in
            // Each note where it was and where it is now: the list may not have caught up yet.
            var places: [String: String] = [:]
            for path in paths {
                let now = Self.path(afterMoving: path, from: from, to: to)
                places[now.lowercased()] = places[now.lowercased()] ?? Self.path(beforeMoving: now, from: from, to: to)
            }
            // The notes that name the place (from the index, in one pass), and those that moved with it.
            let named = index.paths(containing: [raw, rawEncoded]).map { Set($0.map { $0.lowercased() }) }
            var updates: [LinkUpdate] = []
            for (nowLower, was) in places {
                let moved = was.lowercased() != nowLower
                if let named, !moved, !named.contains(nowLower) { continue }
                let now = Self.path(afterMoving: was, from: from, to: to)
                // The index knows a note by the path it had when it read it.
                guard let text = (index.indexedCopy(of: was) ?? index.indexedCopy(of: now))?.text, moved || Self.mayName(text, name, encoded)
                else { continue }
                let count = NoteLinks.movingLinks(in: text, wasAt: was, isAt: now, root: root, from: from, to: to).count
                if count > 0 { updates.append(LinkUpdate(path: now, links: count)) }
            }
            return updates.sorted { $0.path < $1.path }
        }) { [weak self] result in
            guard let self, case .success(let updates) = result, !updates.isEmpty else { return }
            let links = updates.reduce(0) { $0 + $1.links }
            let notes = updates.count == 1 ? "1 note links" : "\(updates.count) notes link"
            let shown = TerminalSafe.escape(String(from.dropFirst(root.count + 1)))
            let modal = Modal(title: "Update links", body: [
                "\(notes) into \"\(shown)\" by its path (\(links) link\(links == 1 ? "" : "s")).",
                "Update them to its new place?",
            ], buttons: ["Update", "Leave them"])
            self.context.ask { DialogLayer(modal, selected: 0) { [weak self] choice in
                guard choice == 0, let self else { return }
                self.updateLinks(updates.map(\.path)) { text, path in
                    NoteLinks.movingLinks(in: text, wasAt: Self.path(beforeMoving: path, from: from, to: to), isAt: path, root: root, from: from, to: to)
                }
            } }
        }
    }

    /// Whether `text` may hold a link that names `name` (cheap, before the links are read).
    nonisolated static func mayName(_ text: String, _ name: String, _ encoded: String) -> Bool {
        let lower = text.lowercased()
        return lower.contains(name) || lower.contains(encoded)
    }

    /// Where the note at `path` is once `from` moved to `to`.
    nonisolated static func path(afterMoving path: String, from: String, to: String) -> String {
        let lower = path.lowercased(), fromLower = from.lowercased()
        if lower == fromLower { return to }
        if lower.hasPrefix(fromLower + "/") { return to + path.dropFirst(from.count) }
        return path
    }

    /// Where the note now at `path` was before `from` moved to `to`.
    nonisolated static func path(beforeMoving path: String, from: String, to: String) -> String {
        let lower = path.lowercased(), toLower = to.lowercased()
        if lower == toLower { return from }
        if lower.hasPrefix(toLower + "/") { return from + path.dropFirst(to.count) }
        return path
    }

    /// Reads each note, rewrites its links with `rewrite`, and saves it over the rev it read,
    /// one at a time.
    func updateLinks(_ paths: [String], _ rewrite: @escaping @Sendable (_ text: String, _ path: String) -> (text: String, count: Int)) {
        let store = context.store, index = noteIndex.index
        context.update {
            $0.beginRequest()
            $0.message = StatusMessage("Updating the links in \(paths.count) note\(paths.count == 1 ? "" : "s")…")
        }
        context.perform({ () async throws(RemoteError) -> LinkUpdateReport in
            // A few notes at a time (each a read and a save): a folder's hundreds of links in seconds.
            let outcomes = await withTaskGroup(of: LinkUpdateOutcome.self) { group in
                var outcomes: [LinkUpdateOutcome] = [], next = 0
                func add() {
                    guard next < paths.count else { return }
                    let path = paths[next]
                    next += 1
                    group.addTask { await Self.updateOne(path, store: store, index: index, rewrite: rewrite) }
                }
                for _ in 0..<Self.linkUpdatesAtOnce { add() }
                for await outcome in group {
                    outcomes.append(outcome)
                    add()
                }
                return outcomes
            }
            var report = LinkUpdateReport()
            for outcome in outcomes {
                switch outcome {
                case .updated(let name): report.updated.append(name)
                case .unchanged: break
                case .conflicted(let name): report.conflicted.append(name)
                case .failed(let name, let why): report.failed.append((name, why))
                case .cancelled: throw .cancelled
                }
            }
            return report
        }) { [weak self] result in
            guard let self else { return }
            self.context.update { $0.endRequest() }
            switch result {
            case .success(let report): self.context.say(Self.message(for: report))
            case .failure(let error): self.context.say(.error("Could not update the links: \(error.message)"))
            }
            self.refresher.refresh(.notes)
        }
    }

    /// How many notes' links are updated at once.
    nonisolated static let linkUpdatesAtOnce = 4

    enum LinkUpdateOutcome: Sendable {
        case updated(String), unchanged, conflicted(String), failed(String, String), cancelled
    }

    /// Reads the note at `path`, rewrites its links, and saves it over the rev it read.
    nonisolated static func updateOne(_ path: String, store: any RemoteStore, index: (any NoteSearchIndex)?,
                                      rewrite: @Sendable (_ text: String, _ path: String) -> (text: String, count: Int)) async -> LinkUpdateOutcome {
        let name = (path as NSString).lastPathComponent
        do throws(RemoteError) {
            let (data, entry) = try await store.read(path)
            guard let text = String(validating: data, as: UTF8.self) else { return .failed(name, "not UTF-8 text") }
            let renamed = rewrite(text, entry.path)
            guard renamed.count > 0, let rev = entry.rev else { return .unchanged }
            let saved = try await store.upload(data: Data(renamed.text.utf8), to: entry.path, mode: .update(rev: rev), autorename: false)
            // The index has the new text at once: the next rename or move counts from it.
            try? index?.upsert(saved, text: renamed.text)
            return .updated(entry.name)
        } catch {
            switch error {
            case .conflict: return .conflicted(name)
            case .cancelled: return .cancelled
            default: return .failed(name, error.message)
            }
        }
    }

    /// "Updated links in 2 notes", and what was left and why.
    static func message(for report: LinkUpdateReport) -> StatusMessage {
        let count = report.updated.count
        var text = "Updated links in \(count) note\(count == 1 ? "" : "s")"
        if !report.conflicted.isEmpty {
            let names = report.conflicted.map { "\"\(TerminalSafe.escape($0))\"" }.joined(separator: ", ")
            text += "; changed meanwhile, left as it was: \(names)"
        }
        if let failed = report.failed.first {
            text += "; could not update \"\(TerminalSafe.escape(failed.name))\": \(failed.why)"
            if report.failed.count > 1 { text += " (and \(report.failed.count - 1) more)" }
        }
        return report.conflicted.isEmpty && report.failed.isEmpty ? StatusMessage(text) : .error(text)
    }
}
