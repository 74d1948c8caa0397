import Foundation
import Remote

extension OutboxSender {
    /// The writes a shell makes at once rather than queues: a rename, a move, a delete, a folder,
    /// a restore, a note saved over or beside theirs, a merged save, link rewrites, tags and
    /// photos. Every write the app makes to a store goes through here or through the queue, so
    /// the queue's rules hold for both:
    ///
    /// - **In order with the queue.** A write that touches notes takes the outbox's send lock
    ///   (waiting for an item being sent to land), so it never lands between a queued item's
    ///   check and its upload.
    /// - **The queue follows a move.** Queued changes to a note or folder that is moved or
    ///   renamed are retargeted to the new place, so they are not sent to where it was (a save
    ///   there would find it gone and come back as a draft).
    /// - **No delete under waiting text.** A note or folder that queued changes still write into
    ///   is not deleted; the refusal says how many wait.
    /// - **One rule after a note's text lands**: its front matter's tags become club tags, as
    ///   after a queued save.
    ///
    /// Without an outbox (some tests), the writes are made as they come.
    public struct Direct: Sendable {
        public let store: any RemoteStore
        public let outbox: Outbox?
        /// How long a write waits for another sender (`byteclub outbox --send`) to let go of the lock.
        public var lockWait: Duration = .seconds(10)

        public init(store: any RemoteStore, outbox: Outbox?) {
            self.store = store
            self.outbox = outbox
        }

        /// Moves (renames) a note or a folder; the queue's changes to it follow it.
        public func move(from: String, to: String, autorename: Bool = false) async throws(RemoteError) -> RemoteEntry {
            try await inOrder { () async throws(RemoteError) -> RemoteEntry in
                let moved = try await store.move(from: from, to: to, autorename: autorename)
                // The note's id, where it is the one it had before the move (not in an encrypted
                // club: there a later save of it, queued at the old path, was said deleted).
                let id = moved.kind == .file && store.keepsIDsThroughMoves ? moved.id : nil
                if !PlantedBug.queueLeftAtMovedPath.isPlanted { try follow(from: from, to: moved.path, id: id) }
                return moved
            }
        }

        /// Deletes a file or a folder, unless queued changes still write into it.
        public func delete(_ path: String) async throws(RemoteError) -> RemoteEntry {
            try await inOrder { () async throws(RemoteError) -> RemoteEntry in
                // A queued delete wants the same; a queued photo upload at this very path is
                // renamed when it goes (it never writes over a file).
                let waiting = Self.items(in: outbox?.all() ?? [], under: path).filter { item in
                    item.kind != .delete && !(item.kind == .upload && item.path.lowercased() == path.lowercased())
                }
                if !waiting.isEmpty {
                    let name = (path as NSString).lastPathComponent
                    let count = waiting.count == 1 ? "a change" : "\(waiting.count) changes"
                    throw .waiting("\(count) to \"\(name)\" wait\(waiting.count == 1 ? "s" : "") to be sent first (byteclub outbox lists \(waiting.count == 1 ? "it" : "them"))")
                }
                return try await store.delete(path)
            }
        }

        /// Makes a folder (nothing queued can name a folder that is not there yet).
        public func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry {
            try await store.createFolder(path)
        }

        /// Brings back revision `rev` of the file at `path` as its newest (``ServerCopies``).
        public func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry {
            try await restoreSaying(path, rev: rev).entry
        }

        /// ``restore(_:rev:)``, with the lines to say of the tags its front matter names.
        public func restoreSaying(_ path: String, rev: String) async throws(RemoteError) -> (entry: RemoteEntry, said: [String]) {
            try await inOrder { () async throws(RemoteError) -> (entry: RemoteEntry, said: [String]) in
                try await ServerCopies.restore(path, rev: rev, store: store)
            }
        }

        /// Copies a file or a folder on the server (``ServerCopies/copy(_:to:keepingName:autorename:store:)``),
        /// in order with the queue: a save of the note sent meanwhile lands before or after the
        /// copy, never between its check and its upload.
        public func copy(_ from: String, to: String, keepingName: Bool, autorename: Bool) async throws(RemoteError)
            -> (entry: RemoteEntry, said: [String]) {
            try await inOrder { () async throws(RemoteError) -> (entry: RemoteEntry, said: [String]) in
                try await ServerCopies.copy(from, to: to, keepingName: keepingName, autorename: autorename, store: store)
            }
        }

        /// A note's text over whatever the server has now (the conflict dialog's Overwrite),
        /// moved first from `from` when its name changed. `moved` is the note after that move,
        /// also when the write after it failed (the editor then follows it there); a note
        /// deleted on the server meanwhile is written anew.
        public func overwrite(_ data: Data, at target: String, from: String?) async throws(RemoteError)
            -> (moved: RemoteEntry?, written: Result<RemoteEntry, RemoteError>) {
            try await inOrder { () async throws(RemoteError) -> (moved: RemoteEntry?, written: Result<RemoteEntry, RemoteError>) in
                var moved: RemoteEntry?
                if let from, from.lowercased() != target.lowercased() || (from as NSString).lastPathComponent != (target as NSString).lastPathComponent {
                    do throws(RemoteError) {
                        let entry = try await store.move(from: from, to: target, autorename: false)
                        moved = entry
                        try follow(from: from, to: target, id: entry.kind == .file ? entry.id : nil)
                    } catch .notFound {
                        // Deleted on the server: the upload below writes it anew.
                    }
                }
                do throws(RemoteError) {
                    // The rev the server has now: a change after this one still conflicts.
                    let current: RemoteEntry?
                    do throws(RemoteError) {
                        current = try await store.metadata(target)
                    } catch .notFound {
                        current = nil
                    }
                    let mode: WriteMode = current?.rev.map { .update(rev: $0) } ?? .add
                    return (moved, .success(try await noteWritten(data, to: target, mode: mode, autorename: false)))
                } catch {
                    return (moved, .failure(error))
                }
            }
        }

        /// A note's text as a new note at `target` (Save as copy), renamed if the name is taken.
        public func saveCopy(_ data: Data, at target: String) async throws(RemoteError) -> RemoteEntry {
            try await noteWritten(data, to: target, mode: .add, autorename: true)
        }

        /// A merged text saved over the rev it was merged with (the merge view, a clean merge).
        public func saveMerged(_ data: Data, at path: String, over rev: String) async throws(RemoteError) -> RemoteEntry {
            try await inOrder { () async throws(RemoteError) -> RemoteEntry in
                try await noteWritten(data, to: path, mode: .update(rev: rev), autorename: false)
            }
        }

        /// Rewrites the links in `paths` (``LinkUpdates``), each note saved over the rev it read.
        public func rewriteLinks(in paths: [String], saved: @escaping @Sendable (RemoteEntry, String) -> Void,
                                 rewrite: @escaping @Sendable (_ text: String, _ path: String) -> (text: String, count: Int))
            async throws(RemoteError) -> LinkUpdates.Report {
            try await inOrder { () async throws(RemoteError) -> LinkUpdates.Report in
                try await LinkUpdates.update(paths, store: store, saved: saved, rewrite: rewrite)
            }
        }

        /// Adds and removes tags on one file; its tags after (``FileTags/apply(_:to:store:)``:
        /// an empty change only reads them).
        public func changeTags(of path: String, _ change: TagChange) async throws(RemoteError) -> [String] {
            try await FileTags.apply(change, to: path, store: store)
        }

        /// A local file put in the club (`byteclub put`), over `streams` connections where the
        /// store can. A note goes in order with the queue (a save of it sent meanwhile lands
        /// before or after, never between), and its front matter's tags become club tags, the
        /// lines to say answered for what was left out; any other file waits for nothing.
        public func put(file: URL, to target: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?,
                        streams: Int?) async throws(RemoteError) -> (entry: RemoteEntry, said: [String]) {
            let name = (target as NSString).lastPathComponent
            let entry: RemoteEntry
            if FrontMatterTags.isNote(name) {
                entry = try await inOrder { () async throws(RemoteError) -> RemoteEntry in
                    try await store.put(file: file, to: target, mode: mode, autorename: autorename, progress: progress, streams: streams)
                }
            } else {
                entry = try await store.put(file: file, to: target, mode: mode, autorename: autorename, progress: progress, streams: streams)
            }
            guard let text = FrontMatterNotes.taggedText(file, name: entry.name) else { return (entry, []) }
            return (entry, try await FrontMatterNotes.adoption(of: text, at: entry.path, store: store).lines)
        }

        /// A local folder put in the club (`byteclub put -r`) by `transfer`: its notes land in
        /// order with the queue (each batch that holds one, and each note sent alone, holds the
        /// send lock while it lands), and then their front matter's tags become club tags, as
        /// after `put` of one; returns the tally and the lines to say of what the tags left out.
        /// Every note in the folder counts (sent now, or the same already), so a run cut between
        /// the two is mended by the next.
        public func putFolder(_ local: URL, into folder: String, mode: WriteMode,
                              transfer: FolderTransfer) async throws -> (tally: FolderTransfer.Tally, said: [String]) {
            var transfer = transfer
            transfer.writes = self
            let tally = try await transfer.upload(local, into: folder, mode: mode)
            var said: [String] = []
            // A thousand notes' texts at a time, their tags added in a few calls.
            for first in stride(from: 0, to: transfer.dryRun ? 0 : tally.notes.count, by: 1000) {
                let notes = tally.notes[first..<min(tally.notes.count, first + 1000)].compactMap { local, remote in
                    FrontMatterNotes.taggedText(local, name: remote).map { (text: $0, path: remote) }
                }
                guard !notes.isEmpty else { continue }
                let adoption = try await FrontMatterNotes.adoption(of: notes, store: store)
                said += adoption.lines
                // A store that keeps no tags says so once.
                guard adoption.kept else { break }
            }
            return (tally, said)
        }

        /// A vault brought into the club (`byteclub import`) by `vaultImport`: its notes land in
        /// order with the queue, as `put -r`'s do (``putFolder(_:into:mode:transfer:)``).
        public func importVault(_ vaultImport: VaultImport,
                                event: @escaping @Sendable (VaultImport.Event) -> Void = { _ in }) async throws -> VaultImport.Report {
            var vaultImport = vaultImport
            vaultImport.writes = self
            return try await vaultImport.run(event: event)
        }

        /// A public link to `path` (`byteclub share`, the app's share key), or the one there
        /// already (`existed`). In an encrypted club the link is to a decrypted copy: each shell
        /// asks the user's leave for that first (``SharingStore/sharesDecryptedCopies``).
        public func share(_ path: String, expires: Date?) async throws(RemoteError) -> (link: RemoteSharedLink, existed: Bool) {
            try await sharingStore(store).createSharedLink(path, expires: expires)
        }

        /// Ends a link ``share(_:expires:)`` made.
        public func unshare(url: String) async throws(RemoteError) {
            try await sharingStore(store).revokeSharedLink(url: url)
        }

        /// Uploads a photo beside the others (renamed if the name is taken). With `onSession`, a
        /// store that keeps upload sessions reports each one's mark, and `resuming` goes on from
        /// one; photos are not notes, so this waits for nothing in the queue.
        public func uploadPhoto(_ file: URL, to target: String, resuming: UploadSessionMark?,
                                onSession: (@Sendable (UploadSessionMark) -> Void)?, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
            if let onSession, let resumable = store as? any ResumableUploadStore {
                return try await resumable.upload(file: file, to: target, mode: .add, autorename: true, resuming: resuming, streams: nil,
                                                  onSession: onSession, progress: progress)
            }
            return try await store.upload(file: file, to: target, mode: .add, autorename: true, progress: progress)
        }

        /// Deletes a photo (nothing queued writes into a photo but its own upload, which made it).
        public func deletePhoto(_ path: String) async throws(RemoteError) -> RemoteEntry {
            try await store.delete(path)
        }

        // MARK: - The rules

        /// Writes a note's text, then adopts its front matter's tags (best effort, as a queued save does).
        private func noteWritten(_ data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
            let entry = try await store.upload(data: data, to: path, mode: mode, autorename: autorename)
            _ = try? await FrontMatterTags.adopt(String(decoding: data, as: UTF8.self), at: entry.path, store: store)
            return entry
        }

        /// ``inOrder(_:)`` for the core's other writers (``FolderTransfer``'s notes).
        func inOrderWithTheQueue<T: Sendable>(_ body: () async throws(RemoteError) -> T) async throws(RemoteError) -> T {
            try await inOrder(body)
        }

        /// Runs `body` holding the send lock, waiting up to ``lockWait`` for another sender.
        private func inOrder<T: Sendable>(_ body: () async throws(RemoteError) -> T) async throws(RemoteError) -> T {
            guard let outbox else { return try await body() }
            let deadline = ContinuousClock.now + lockWait
            while true {
                let result: Result<T, RemoteError>? = await outbox.withSendLock { () async -> Result<T, RemoteError> in
                    do throws(RemoteError) { return .success(try await body()) } catch { return .failure(error) }
                }
                if let result { return try result.get() }
                guard ContinuousClock.now < deadline else {
                    throw .local("Another byteclub is sending this club's outbox; try again when it is done")
                }
                do { try await Task.sleep(for: .milliseconds(20)) } catch { throw .cancelled }
            }
        }

        /// After `from` moved to `to` (`id`: the note's, when a note moved): the queued items at
        /// or under it are retargeted there.
        private func follow(from: String, to: String, id: String?) throws(RemoteError) {
            guard let outbox else { return }
            do {
                for item in Self.items(in: outbox.all(), under: from) {
                    try outbox.replace(Self.moved(item, from: from, to: to))
                }
                // And what is queued at the old path later (an editor that had it open there).
                try outbox.recordMove(from: from, to: to, id: id)
            } catch {
                throw .local("Moved, but the outbox in \(outbox.directory.path) could not follow: \(error.localizedDescription)")
            }
        }

        /// The items whose path (or a rename's new path) is `path` or under it, by case-blind path.
        static func items(in items: [OutboxItem], under path: String) -> [OutboxItem] {
            items.filter { item in [item.path, item.newPath].contains { $0.map { Self.isAt(path, $0) } ?? false } }
        }

        /// `item` with each of its paths at or under `from` put at or under `to` instead (the
        /// resolver's rule for a move, ``NoteResolver/path(afterMoving:from:to:)``).
        static func moved(_ item: OutboxItem, from: String, to: String) -> OutboxItem {
            var moved = item
            moved.path = NoteResolver.path(afterMoving: item.path, from: from, to: to)
            moved.newPath = item.newPath.map { NoteResolver.path(afterMoving: $0, from: from, to: to) }
            return moved
        }

        private static func isAt(_ folder: String, _ path: String) -> Bool {
            let (folder, path) = (folder.lowercased(), path.lowercased())
            return path == folder || path.hasPrefix(folder + "/")
        }
    }
}
