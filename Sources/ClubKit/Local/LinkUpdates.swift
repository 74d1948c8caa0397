import Foundation
import Remote

/// Links kept across a rename or a move, for both shells (issue 54): the app's `R` and `m`
/// (after asking) and the command line's `mv --update-links`. The rewrite is the core's
/// ``LinkRewrite`` over the notes as they were listed before the move; each update is an
/// ordinary save over the rev just read (`update` mode), so a note someone changed in between
/// conflicts and is reported and left as it was, never overwritten.
public enum LinkUpdates {
    /// How many notes' links are updated at once.
    public static let atOnce = 4

    /// What updating one note did.
    public enum Outcome: Sendable, Equatable {
        case updated(String), unchanged, conflicted(String), failed(String, String), cancelled
    }

    /// What updating the links did.
    public struct Report: Sendable {
        public var updated: [String] = []
        /// Changed by someone between the read and the save: left as it was.
        public var conflicted: [String] = []
        public var failed: [(name: String, why: String)] = []

        public init() {}

        /// Whether every note that needed it was updated.
        public var isComplete: Bool { conflicted.isEmpty && failed.isEmpty }

        /// "Updated links in 2 notes", and what was left and why (names made safe for a terminal).
        public var summary: String {
            let count = updated.count
            var text = "Updated links in \(count) note\(count == 1 ? "" : "s")"
            if !conflicted.isEmpty {
                let names = conflicted.map { "\"\(TerminalSafe.escape($0))\"" }.joined(separator: ", ")
                text += "; changed meanwhile, left as it was: \(names)"
            }
            if let first = failed.first {
                text += "; could not update \"\(TerminalSafe.escape(first.name))\": \(first.why)"
                if failed.count > 1 { text += " (and \(failed.count - 1) more)" }
            }
            return text
        }
    }

    /// The rewrite of the links into `from` once it moved to `to`, over `notes` as they were
    /// listed before the move (a listing taken after it works too).
    public static func rewrite(from: String, to: String, notes: some Collection<RemoteEntry>, root: String, aliases: [String: [String]] = [:]) -> LinkRewrite {
        let listed = NoteResolver(entries: notes, root: root, aliases: aliases)
        return LinkRewrite(from: from, to: to, notes: listed.unmoved(from: from, to: to))
    }

    /// Reads the note at `path`, rewrites its links with `rewrite` (its text and its path now),
    /// and saves it over the rev it read; `saved` is told the new entry and text.
    public static func updateOne(_ path: String, store: any RemoteStore, saved: @Sendable (RemoteEntry, String) -> Void = { _, _ in },
                                 rewrite: @Sendable (_ text: String, _ path: String) -> (text: String, count: Int)) async -> Outcome {
        let name = (path as NSString).lastPathComponent
        do throws(RemoteError) {
            let (data, entry) = try await store.read(path)
            guard let text = String(validating: data, as: UTF8.self) else { return .failed(name, "not UTF-8 text") }
            let renamed = rewrite(text, entry.path)
            guard renamed.count > 0, let rev = entry.rev else { return .unchanged }
            let written = try await store.upload(data: Data(renamed.text.utf8), to: entry.path, mode: .update(rev: rev), autorename: false)
            saved(written, renamed.text)
            return .updated(entry.name)
        } catch {
            switch error {
            case .conflict: return .conflicted(name)
            case .cancelled: return .cancelled
            default: return .failed(name, error.message)
            }
        }
    }

    /// ``updateOne(_:store:saved:rewrite:)`` for each of `paths`, a few at a time (each a read
    /// and a save: a folder's hundreds of links in seconds); thrown only when cancelled.
    public static func update(_ paths: [String], store: any RemoteStore, saved: @escaping @Sendable (RemoteEntry, String) -> Void = { _, _ in },
                              rewrite: @escaping @Sendable (_ text: String, _ path: String) -> (text: String, count: Int)) async throws(RemoteError) -> Report {
        let outcomes = await withTaskGroup(of: Outcome.self) { group in
            var outcomes: [Outcome] = [], next = 0
            func add() {
                guard next < paths.count else { return }
                let path = paths[next]
                next += 1
                group.addTask { await updateOne(path, store: store, saved: saved, rewrite: rewrite) }
            }
            for _ in 0..<atOnce { add() }
            for await outcome in group {
                outcomes.append(outcome)
                add()
            }
            return outcomes
        }
        var report = Report()
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
    }

    /// After `from` (a note, a file or a folder) moved to `to`: every note of `entries` (the
    /// club's files as listed before the move) whose links led into it, rewritten and saved.
    public static func afterMove(from: String, to: String, entries: [RemoteEntry], root: String,
                                 store: any RemoteStore) async throws(RemoteError) -> Report {
        let rewrite = rewrite(from: from, to: to, notes: entries, root: root)
        let notes = rewrite.before.entries.filter { ClubLayout.hasExtension($0.name, in: ClubLayout.noteExtensions) }
        return try await update(notes.map { rewrite.now($0.path) }, store: store) { text, path in rewrite.rewrite(text, wasAt: rewrite.was(path)) }
    }
}
