import DropboxWire
import Durable
import Foundation

/// `copy_v2`, in three steps so the bytes never hold the folder's actor (a big copy must not
/// keep every other commit waiting): `planCopy` checks the source and the target on the actor
/// and opens the source; `copyBytes` (static, called off the actor) reflinks or streams it into
/// a temp file or folder; `finishCopy` commits that on the actor, checking the target again,
/// as it may have been taken meanwhile.
extension FolderStore {
    /// A folder copy holds at most this many entries (Dropbox answers `too_many_files` too).
    static let maxCopyEntries = 10_000

    /// What a copy copies, decided on the actor.
    struct CopyPlan: Sendable {
        /// The source file, opened, with the metadata of what was opened; nil for a folder.
        var file: Opened?
        var sourceHost: String
        var target: DropboxPath
        var autorename: Bool
        /// Where the bytes go first: inside `.byteclub/tmp`, removed on any failure.
        var temp: String
        /// The depth of the target below the root (a folder copy stops at the walk limit).
        var depth: Int
    }

    func planCopy(from: DropboxPath, to: DropboxPath, autorename: Bool) throws(APIError) -> CopyPlan {
        guard !from.isRoot else { throw .endpoint([.fromLookup, .malformedPath]) }
        guard !to.isRoot else { throw .endpoint([.to, .malformedPath]) }
        let source: Resolved
        do { source = try resolve(from) } catch { throw Self.relabeled(error, as: .fromLookup) }
        guard source.exists else { throw .endpoint([.fromLookup, .notFound]) }
        if source.isDirectory && (to.lower == source.path.lower || to.lower.hasPrefix(source.path.lower + "/")) {
            throw .endpoint([.cantMoveFolderIntoItself])
        }
        var target: Resolved
        do { target = try resolve(to) } catch { throw Self.relabeled(error, as: .to) }
        if target.exists {
            guard autorename else { throw .endpoint([.to, .conflict, (target.isDirectory ? .folder : .file)]) }
            target = try Self.relabeledCall(.to) { () throws(APIError) in try freeName(near: target, suffix: nil) }
        }
        let temp = tempDirectory + "/copy-\(UUID().uuidString)"
        guard !source.isDirectory else {
            return CopyPlan(file: nil, sourceHost: source.host, target: target.path, autorename: autorename, temp: temp,
                            depth: target.path.components.count)
        }
        let opened = try Self.relabeledCall(.fromLookup) { () throws(APIError) in try openForReading(source.path) }
        guard opened.file.contentHash != nil else { throw .endpoint([.fromLookup, .notFile]) }
        return CopyPlan(file: opened, sourceHost: source.host, target: target.path, autorename: autorename, temp: temp, depth: 0)
    }

    /// Fills `plan.temp` with the source's bytes, off the actor. A file over `streamLimit` (the
    /// largest an upload session makes) that cannot be reflinked is refused.
    static func copyBytes(_ plan: CopyPlan, streamLimit: Int64, cancel: CopyCancellation) -> Result<Void, APIError> {
        guard let opened = plan.file else {
            var budget = maxCopyEntries
            do {
                guard try copyTree(plan.sourceHost, to: plan.temp, depth: plan.depth, budget: &budget, streamLimit: streamLimit,
                                   cancel: cancel) else {
                    try? FileManager.default.removeItem(atPath: plan.temp)
                    return .failure(cancel.isCancelled ? .cancelled : .endpoint([.to, .insufficientSpace]))
                }
            } catch {
                try? FileManager.default.removeItem(atPath: plan.temp)
                return .failure(error)
            }
            return .success(())
        }
        let output = open(plan.temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { return .failure(.endpoint([.to, .insufficientSpace])) }
        let outcome = FileCopier.copy(from: opened.handle.fd, to: output, size: opened.file.size, streamLimit: streamLimit, cancel: cancel)
        let synced = DurableFile.flush(output)
        close(output)
        // The bytes must be those the metadata (and its content hash) describe: a file edited
        // in place during the copy is refused, and the client may try again.
        var after = stat()
        let unchanged = fstat(opened.handle.fd, &after) == 0 && Int64(after.st_size) == opened.file.size
            && Self.rev(Self.key(after)) == opened.file.rev
        switch outcome {
        case .cloned, .streamed:
            if synced && unchanged { return .success(()) }
            unlink(plan.temp)
            return .failure(synced ? .endpoint([.to, .tooManyWriteOperations]) : .endpoint([.to, .insufficientSpace]))
        case .tooLarge:
            unlink(plan.temp)
            return .failure(tooLargeToCopy(opened.file.size, limit: streamLimit))
        case .failed:
            unlink(plan.temp)
            return .failure(cancel.isCancelled ? .cancelled : .endpoint([.to, .insufficientSpace]))
        }
    }

    /// RelocationError's `insufficient_quota`, with a sentence saying what limit it is.
    static func tooLargeToCopy(_ size: Int64, limit: Int64) -> APIError {
        APIError.endpoint([.insufficientQuota])
            .saying("this disk cannot share a file's bytes between copies (no reflinks), and a copy written out in full is at most \(limit >> 20) MiB, the largest file an upload makes; this file has \(size >> 20) MiB")
    }

    /// Commits what `copyBytes` made: a file through the commit path (a new id and a first
    /// revision by the caller), a folder renamed into place in one step.
    func finishCopy(_ plan: CopyPlan) throws(APIError) -> Metadata {
        guard let opened = plan.file else { return try finishFolderCopy(plan) }
        do {
            return try commit(temp: plan.temp, contentHash: opened.file.contentHash ?? "", to: plan.target, mode: .add,
                              autorename: plan.autorename, clientModified: opened.file.clientModified, discardOnFailure: true)
        } catch {
            throw Self.relabeledWrite(error, as: .to)
        }
    }

    private func finishFolderCopy(_ plan: CopyPlan) throws(APIError) -> Metadata {
        defer { try? FileManager.default.removeItem(atPath: plan.temp) }
        var target: Resolved
        do { target = try resolve(plan.target) } catch { throw Self.relabeled(error, as: .to) }
        if target.exists {
            // Taken while the bytes were copied.
            guard plan.autorename else { throw .endpoint([.to, .conflict, (target.isDirectory ? .folder : .file)]) }
            target = try Self.relabeledCall(.to) { () throws(APIError) in try freeName(near: target, suffix: nil) }
        }
        do {
            try makeParents(of: target)
        } catch {
            throw Self.relabeledWrite(error, as: .to)
        }
        do {
            try DurableFile.place(plan.temp, at: target.host)
        } catch {
            throw .endpoint([.to, .noWritePermission])
        }
        var placed = target
        placed.exists = true
        placed.isDirectory = true
        // Every copied file starts a history of its own, made by the caller.
        for case .file(let file) in (try? list(placed.path, recursive: true)) ?? [] {
            let relative = (file.pathDisplay ?? "").dropFirst(placed.path.display.count)
            recordCommit(file, at: placed.host + relative)
        }
        let result = try metadata(placed)
        flushIdentifiers()
        // journal: restore/copy (a file's copy and a restore are commits, journaled there).
        recordChanges(at: placed.path)
        return result
    }

    /// Copies a folder's regular files and folders (never a symlink: it is left out) into
    /// `destination`, keeping modes and modification times; false when the disk refuses or the
    /// copy is cancelled. Throws `too_many_files` past the budget, and the upload limit for a
    /// file that must be streamed; it stops at the walk depth limit.
    private static func copyTree(_ source: String, to destination: String, depth: Int, budget: inout Int, streamLimit: Int64,
                                 cancel: CopyCancellation) throws(APIError) -> Bool {
        guard mkdir(destination, 0o777) == 0 else { return false }
        guard depth < Self.maxWalkDepth else { return true }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: source) else { return true }
        for name in names where DropboxPath.isSafeComponent(name) {
            if cancel.isCancelled { return false }
            var info = stat()
            guard lstat(source + "/" + name, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { continue }
            budget -= 1
            guard budget >= 0 else { throw .endpoint([.tooManyFiles]) }
            if kind == S_IFDIR {
                guard try copyTree(source + "/" + name, to: destination + "/" + name, depth: depth + 1, budget: &budget,
                                   streamLimit: streamLimit, cancel: cancel) else { return false }
                continue
            }
            let input = open(source + "/" + name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
            guard input >= 0 else { continue }
            defer { close(input) }
            let output = open(destination + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(info.st_mode & 0o777))
            guard output >= 0 else { return false }
            let outcome = FileCopier.copy(from: input, to: output, size: Int64(info.st_size), streamLimit: streamLimit, cancel: cancel)
            var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), info.st_mtim] // UTIME_OMIT for the access time
            futimens(output, &times)
            close(output)
            if outcome == .tooLarge { throw tooLargeToCopy(Int64(info.st_size), limit: streamLimit) }
            guard outcome != .failed else { return false }
        }
        return true
    }
}
