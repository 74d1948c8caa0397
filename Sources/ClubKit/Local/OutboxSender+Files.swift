import Foundation
import Remote

/// Renames, deletes and photo uploads from the outbox (notes' saves and creates are in
/// `OutboxSender+Kinds.swift`). Each checks first whether the server has the change already,
/// so a send repeated after a crash does nothing twice.
extension OutboxSender {
    // MARK: - Renames

    /// Moves the note from `path` to `newPath`.
    ///
    /// - The note gone from `path` and found at `newPath` with our base rev in its history: the
    ///   move was made before a crash (a move makes a new rev on a club server, so the rev alone
    ///   cannot say).
    /// - `newPath` taken by another file: refused (a move never replaces anything).
    /// - The note changed on the server since our base rev: still moved (the move overwrites no
    ///   one's text), but answered as `.merged`, so ``Outbox/retarget(_:after:entry:result:)``
    ///   moves later saves to the new path while keeping their base rev: they then conflict and
    ///   merge with that change instead of overwriting it. `.sent` means the rev after the move
    ///   came from our base rev and nothing else.
    func sendRename(_ item: OutboxItem) async throws(RemoteError) -> OutboxAnswer {
        guard let newPath = item.newPath else { return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)) had no new name in the outbox")) }
        let newName = TerminalSafe.escape(Self.noteName(newPath))
        let current: RemoteEntry
        do {
            current = try await store.metadata(item.path)
        } catch {
            let failure = try Self.answer(error)
            guard case .notFound = failure else { return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)): \(failure.message)")) }
            return try await renameAlreadyDone(item, newPath: newPath)
        }
        do {
            let there = try await store.metadata(newPath)
            let same = there.id != nil && there.id == current.id
            if !same && there.pathLower != current.pathLower {
                return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)): a note named \"\(TerminalSafe.escape(newName))\" already exists"), cause: .nameTaken)
            }
        } catch {
            let failure = try Self.answer(error)
            guard case .notFound = failure else { return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)): \(failure.message)")) }
        }
        if item.onlyAtBaseRev == true, let baseRev = item.baseRev, current.rev != baseRev {
            return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)) was changed on the server since"), cause: .changed)
        }
        let moved: RemoteEntry
        do {
            moved = try await store.move(from: item.path, to: newPath, autorename: false)
        } catch {
            let failure = try Self.answer(error)
            switch failure {
            case .conflict: return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)): a note named \"\(TerminalSafe.escape(newName))\" already exists"), cause: .nameTaken)
            case .notFound: return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)) was deleted on the server"), cause: .gone)
            default: return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)): \(failure.message)"))
            }
        }
        if item.baseRev == nil || current.rev == item.baseRev { return OutboxAnswer(.sent(moved)) }
        return OutboxAnswer(.merged(moved, by: current.modifiedBy))
    }

    /// The note is not at its old path: moved there before a crash, or deleted (or moved
    /// elsewhere) by someone else.
    private func renameAlreadyDone(_ item: OutboxItem, newPath: String) async throws(RemoteError) -> OutboxAnswer {
        let deleted = OutboxResult.refused("Not renamed: \(Self.shown(item.title)) was deleted on the server")
        let there: RemoteEntry
        do {
            there = try await store.metadata(newPath)
        } catch {
            let failure = try Self.answer(error)
            if case .notFound = failure { return OutboxAnswer(deleted, cause: .gone) }
            return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)): \(failure.message)"))
        }
        guard let baseRev = item.baseRev, there.rev != baseRev else { return OutboxAnswer(.sent(there)) }
        // Whether the file at the new name is our note: its history holds our base rev.
        let history: RemoteRevisions
        do {
            history = try await store.revisions(newPath, limit: 20)
        } catch {
            // A store without revisions cannot say whose file it is: not ours to claim.
            let failure = try Self.answer(error)
            return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)) is no longer on the server under its old name (\(failure.message))"))
        }
        let revisions = history.entries.filter { $0.rev != nil }
        guard let index = revisions.firstIndex(where: { $0.rev == baseRev }) else {
            let newName = TerminalSafe.escape(Self.noteName(newPath))
            return OutboxAnswer(.refused("Not renamed: \(Self.shown(item.title)) is no longer on the server under its old name, and \"\(TerminalSafe.escape(newName))\" is another note"))
        }
        // Right after our base rev, with our base's very bytes: the move's own rev (a club
        // server's move makes one). By the rev alone, a store whose move keeps the file's rev
        // (the simulation's club does) told someone's change since our base for the move: the
        // save after it was sent over that change and wrote it away (a simulated history, seed 77).
        if index == 1, revisions[0].rev == there.rev, let moved = revisions[0].contentHash, moved == revisions[1].contentHash {
            return OutboxAnswer(.sent(there))
        }
        return OutboxAnswer(.merged(there, by: there.modifiedBy))
    }

    /// A path's last component, for messages.
    static func noteName(_ path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path))
    }

    // MARK: - Deletes

    /// Deletes the note only if it is still at the rev we saw: someone's change made meanwhile
    /// is kept, and the delete refused. A note already gone counts as deleted.
    func sendDelete(_ item: OutboxItem) async throws(RemoteError) -> OutboxResult {
        let current: RemoteEntry
        do {
            current = try await store.metadata(item.path)
        } catch {
            let failure = try Self.answer(error)
            if case .notFound = failure { return .sent(nil) }
            return .refused("Not deleted: \(Self.shown(item.title)): \(failure.message)")
        }
        if let baseRev = item.baseRev, current.rev != baseRev {
            return .refused("Not deleted: \(Self.shown(item.title)) was changed on the server since; it is kept")
        }
        do {
            _ = try await store.delete(item.path)
        } catch {
            let failure = try Self.answer(error)
            if case .notFound = failure { return .sent(nil) }
            return .refused("Not deleted: \(Self.shown(item.title)): \(failure.message)")
        }
        return .sent(nil)
    }

    // MARK: - Uploads

    /// Uploads the photo from disk, if it is still what was queued (same size and modification
    /// time), and only if the server does not have it already: a photo at the path, or any file
    /// in its folder, with the same content hash (name and size when the server gives no hash)
    /// is this upload, sent before a crash (an upload takes a free name when its own is taken).
    func sendUpload(_ item: OutboxItem) async throws(RemoteError) -> OutboxResult {
        guard let localFile = item.localFile else { return .refused("Not uploaded: \(Self.shown(item.title)) had no local file in the outbox") }
        let file = URL(fileURLWithPath: localFile)
        let name = TerminalSafe.escape(file.lastPathComponent)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
              (attributes[.type] as? FileAttributeType) == .typeRegular else {
            return .refused("Not uploaded: \(TerminalSafe.escape(name)) was removed since it was queued")
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value
        let modified = attributes[.modificationDate] as? Date
        // The outbox keeps whole seconds (ISO 8601), so times within a second are the same.
        let sameTime = item.localModified.map { queued in modified.map { abs($0.timeIntervalSince(queued)) < 1 } ?? false } ?? true
        guard item.localSize.map({ $0 == size }) ?? true, sameTime else {
            return .refused("Not uploaded: \(TerminalSafe.escape(name)) changed since it was queued")
        }
        let hash: String
        do {
            hash = try ContentHasher.hash(fileAt: file.path)
        } catch {
            return .refused("Not uploaded: \(TerminalSafe.escape(name)) cannot be read: \(error.localizedDescription)")
        }
        if let there = try await alreadyUploaded(item, hash: hash, size: size ?? -1) { return .sent(there) }
        do {
            return .sent(try await store.upload(file: file, to: item.path, mode: .add, autorename: true, progress: nil))
        } catch {
            let failure = try Self.answer(error)
            return .refused("Not uploaded: \(TerminalSafe.escape(name)): \(failure.message)")
        }
    }

    /// The server's file that holds exactly this upload, if there is one.
    private func alreadyUploaded(_ item: OutboxItem, hash: String, size: Int64) async throws(RemoteError) -> RemoteEntry? {
        func matches(_ entry: RemoteEntry, byName: Bool) -> Bool {
            guard entry.kind == .file else { return false }
            if let theirs = entry.contentHash { return theirs == hash }
            return byName && entry.size == size
        }
        do {
            let there = try await store.metadata(item.path)
            if matches(there, byName: true) { return there }
        } catch {
            _ = try Self.answer(error)
        }
        let folder = (item.path as NSString).deletingLastPathComponent
        do {
            return try await store.list(folder == "/" ? "" : folder).first { matches($0, byName: false) }
        } catch {
            _ = try Self.answer(error)
            return nil
        }
    }
}
