import DropboxWire
import Foundation

/// `copy_v2`: files through the commit path, folders copied whole into a temp folder and
/// renamed into place, so a copy cut short is never seen.
extension FolderStore {
    /// A folder copy holds at most this many entries (Dropbox answers `too_many_files` too).
    static let maxCopyEntries = 10_000

    func copy(from: DropboxPath, to: DropboxPath, autorename: Bool) throws(APIError) -> Metadata {
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
        if source.isDirectory { return try copyFolder(source, to: target) }
        guard case .file(let file) = try Self.relabeledCall(.fromLookup, { () throws(APIError) in try metadata(source) }),
              let hash = file.contentHash else { throw .endpoint([.fromLookup, .notFile]) }
        let temp = tempDirectory + "/copy-\(UUID().uuidString)"
        guard Self.copyFile(from: source.host, to: temp, temp: tempDirectory) else { throw .endpoint([.to, .insufficientSpace]) }
        do {
            return try commit(temp: temp, contentHash: hash, to: target.path, mode: .overwrite, autorename: false,
                              clientModified: file.clientModified, discardOnFailure: true)
        } catch {
            throw Self.relabeledWrite(error, as: .to)
        }
    }

    private func copyFolder(_ source: Resolved, to target: Resolved) throws(APIError) -> Metadata {
        let temp = tempDirectory + "/copy-\(UUID().uuidString)"
        var budget = Self.maxCopyEntries
        let copied: Bool
        do {
            copied = try copyTree(source.host, to: temp, depth: target.path.components.count, budget: &budget)
        } catch {
            try? FileManager.default.removeItem(atPath: temp)
            throw error
        }
        guard copied else {
            try? FileManager.default.removeItem(atPath: temp)
            throw .endpoint([.to, .insufficientSpace])
        }
        do {
            try makeParents(of: target)
        } catch {
            try? FileManager.default.removeItem(atPath: temp)
            throw Self.relabeledWrite(error, as: .to)
        }
        guard rename(temp, target.host) == 0 else {
            try? FileManager.default.removeItem(atPath: temp)
            throw .endpoint([.to, .noWritePermission])
        }
        Self.syncDirectory(of: target.host)
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
    /// `destination`, keeping modes and modification times; false when the disk refuses.
    /// Throws `too_many_files` past the budget; it stops at the walk depth limit and on cancel.
    private func copyTree(_ source: String, to destination: String, depth: Int, budget: inout Int) throws(APIError) -> Bool {
        guard mkdir(destination, 0o777) == 0 else { return false }
        guard depth < Self.maxWalkDepth else { return true }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: source) else { return true }
        for name in names where DropboxPath.isSafeComponent(name) {
            if Task.isCancelled { throw .cancelled }
            var info = stat()
            guard lstat(source + "/" + name, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { continue }
            budget -= 1
            guard budget >= 0 else { throw .endpoint([.tooManyFiles]) }
            if kind == S_IFDIR {
                guard try copyTree(source + "/" + name, to: destination + "/" + name, depth: depth + 1, budget: &budget) else { return false }
                continue
            }
            let input = open(source + "/" + name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
            guard input >= 0 else { continue }
            defer { close(input) }
            let output = open(destination + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(info.st_mode & 0o777))
            guard output >= 0 else { return false }
            let ok = Self.copyBytes(from: input, to: output, count: Int64(info.st_size))
            var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), info.st_mtim] // UTIME_OMIT for the access time
            futimens(output, &times)
            close(output)
            guard ok else { return false }
        }
        return true
    }
}
