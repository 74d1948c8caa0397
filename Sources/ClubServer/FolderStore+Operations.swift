import DropboxWire
import Durable
import Foundation

/// Folder creation, delete and move, with the ids following their entries.
extension FolderStore {
    func createFolder(_ path: DropboxPath, autorename: Bool) throws(APIError) -> Metadata {
        guard !path.isRoot else { throw .endpoint([.path, .conflict, .folder]) }
        var target = try paths.freeTarget(try resolve(path), autorename: autorename, field: .path)
        do {
            try FileManager.default.createDirectory(atPath: target.host, withIntermediateDirectories: true)
        } catch {
            throw .endpoint([.path, .noWritePermission])
        }
        target.exists = true
        target.isDirectory = true
        let result = try metadata(target)
        recordChanges(at: target.path)
        flushIdentifiers()
        return result
    }

    func delete(_ path: DropboxPath) throws(APIError) -> Metadata {
        guard !path.isRoot else { throw .endpoint([.pathLookup, .malformedPath]) }
        let target = try APIError.relabeling(.pathLookup) { () throws(APIError) in try resolve(path) }
        guard target.exists else { throw .endpoint([.pathLookup, .notFound]) }
        let result = try metadata(target)
        // Histories outlive their files (FolderStore+Revisions).
        let retired = retireForDelete(target)
        do {
            try FileManager.default.removeItem(atPath: target.host)
        } catch {
            throw .endpoint([.pathWrite, .noWritePermission])
        }
        // What was deleted lives on in its histories alone now: private there.
        HistoryFiles.makePrivate(retired: retired)
        recordChanges(at: target.path)
        let prefix = target.path.lower
        dropTags(under: prefix)
        identifiers.forget(under: prefix)
        flushIdentifiers()
        return result
    }

    func move(from: DropboxPath, to: DropboxPath, autorename: Bool) throws(APIError) -> Metadata {
        guard !from.isRoot else { throw .endpoint([.fromLookup, .malformedPath]) }
        guard !to.isRoot else { throw .endpoint([.to, .malformedPath]) }
        let source = try APIError.relabeling(.fromLookup) { () throws(APIError) in try resolve(from) }
        guard source.exists else { throw .endpoint([.fromLookup, .notFound]) }
        if to.lower.hasPrefix(source.path.lower + "/") { throw .endpoint([.cantMoveFolderIntoItself]) }
        var target = try APIError.relabeling(.to) { () throws(APIError) in try resolve(to) }
        if target.exists && target.path.lower == source.path.lower && FolderPaths.sameEntry(target.host, source.host) {
            // A case-only rename: `to` found the source itself. Rename it to the new spelling of
            // its last component, as Dropbox does (the folders above keep theirs).
            guard to.name != source.path.name else { return try metadata(source) }
            target = Resolved(host: (source.host as NSString).deletingLastPathComponent + "/" + to.name,
                              path: source.path.parent.appending(to.name), exists: false, isDirectory: source.isDirectory)
        } else {
            // Another entry, even one whose name differs only in case (two can exist on a
            // case-sensitive disk): never replaced by a move.
            target = try paths.freeTarget(target, autorename: autorename, field: .to)
        }
        do {
            try paths.makeParents(of: target)
        } catch {
            throw .endpoint([.to, .conflict, .file])
        }
        guard rename(source.host, target.host) == 0 else { throw .endpoint([.to, .noWritePermission]) }
        DurableFile.syncFolder(of: target.host)
        recordChanges(at: source.path, target.path)
        // The id follows the entry, and its descendants' ids follow too.
        identifiers.move(from: source.path.lower, to: target.path.lower)
        target.exists = true
        target.isDirectory = source.isDirectory
        let result = try metadata(target)
        // A moved file has a new rev (the rename sets its ctime): a revision by the mover.
        if case .file(let file) = result { reconcile(file, member: Caller.member ?? ClubMember.sharedName) }
        flushIdentifiers()
        return try metadata(target)
    }
}
