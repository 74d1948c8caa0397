import DropboxWire
import Durable
import Foundation

/// `copy_v2` on the actor, in two of its three steps: `planCopy` checks the source and the
/// target and opens the source; the bytes are copied off the actor (``CopyPlan/copyBytes(streamLimit:cancel:)``);
/// `finishCopy` commits them, checking the target again, as it may have been taken meanwhile.
extension FolderStore {
    func planCopy(from: DropboxPath, to: DropboxPath, autorename: Bool) throws(APIError) -> CopyPlan {
        guard !from.isRoot else { throw .endpoint([.fromLookup, .malformedPath]) }
        guard !to.isRoot else { throw .endpoint([.to, .malformedPath]) }
        let source = try APIError.relabeling(.fromLookup) { () throws(APIError) in try resolve(from) }
        guard source.exists else { throw .endpoint([.fromLookup, .notFound]) }
        if source.isDirectory && (to.lower == source.path.lower || to.lower.hasPrefix(source.path.lower + "/")) {
            throw .endpoint([.cantMoveFolderIntoItself])
        }
        let target = try APIError.relabeling(.to) { () throws(APIError) in try paths.freeTarget(try resolve(to), autorename: autorename, field: .to) }
        let temp = tempDirectory + "/copy-\(UUID().uuidString)"
        guard !source.isDirectory else {
            return CopyPlan(file: nil, sourceHost: source.host, target: target.path, autorename: autorename, temp: temp,
                            depth: target.path.components.count)
        }
        let opened = try APIError.relabeling(.fromLookup) { () throws(APIError) in try openForReading(source.path) }
        guard opened.file.contentHash != nil else { throw .endpoint([.fromLookup, .notFile]) }
        return CopyPlan(file: opened, sourceHost: source.host, target: target.path, autorename: autorename, temp: temp, depth: 0)
    }

    /// Commits what `copyBytes` made: a file through the commit path (a new id and a first
    /// revision by the caller), a folder renamed into place in one step.
    func finishCopy(_ plan: CopyPlan) throws(APIError) -> Metadata {
        guard let opened = plan.file else { return try finishFolderCopy(plan) }
        do {
            return try commit(temp: plan.temp, contentHash: opened.file.contentHash ?? "", to: plan.target, mode: .add,
                              autorename: plan.autorename, clientModified: opened.file.clientModified, discardOnFailure: true)
        } catch {
            throw error.relabeledWrite(as: .to)
        }
    }

    private func finishFolderCopy(_ plan: CopyPlan) throws(APIError) -> Metadata {
        defer { try? FileManager.default.removeItem(atPath: plan.temp) }
        // Taken again while the bytes were copied: a free name, or a conflict.
        var target = try APIError.relabeling(.to) { () throws(APIError) in
            try paths.freeTarget(try resolve(plan.target), autorename: plan.autorename, field: .to)
        }
        do {
            try paths.makeParents(of: target)
        } catch {
            throw error.relabeledWrite(as: .to)
        }
        do {
            try DurableFile.place(plan.temp, at: target.host)
        } catch {
            throw .endpoint([.to, .noWritePermission])
        }
        target.exists = true
        target.isDirectory = true
        // Every copied file starts a history of its own, made by the caller.
        for case .file(let file) in (try? list(target.path, recursive: true)) ?? [] {
            let relative = (file.pathDisplay ?? "").dropFirst(target.path.display.count)
            recordCommit(file, at: target.host + relative)
        }
        let result = try metadata(target)
        flushIdentifiers()
        // journal: restore/copy (a file's copy and a restore are commits, journaled there).
        recordChanges(at: target.path)
        return result
    }
}
