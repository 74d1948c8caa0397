import DropboxWire
import Durable
import Foundation

/// Folder creation, delete and move, with the ids following their entries.
extension FolderStore {
    func createFolder(_ path: DropboxPath, autorename: Bool) throws(APIError) -> Metadata {
        guard !path.isRoot else { throw .endpoint([.path, .conflict, .folder]) }
        var target = try resolve(path)
        if target.exists {
            guard autorename else { throw .endpoint([.path, .conflict, (target.isDirectory ? .folder : .file)]) }
            target = try freeName(near: target, suffix: nil)
        }
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
        let target: Resolved
        do { target = try resolve(path) } catch { throw Self.relabel(error, as: .pathLookup) }
        guard target.exists else { throw .endpoint([.pathLookup, .notFound]) }
        let result = try metadata(target)
        // Histories outlive their files (FolderStore+Revisions).
        retireForDelete(target)
        do {
            try FileManager.default.removeItem(atPath: target.host)
        } catch {
            throw .endpoint([.pathWrite, .noWritePermission])
        }
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
        let source: Resolved
        do { source = try resolve(from) } catch { throw Self.relabel(error, as: .fromLookup) }
        guard source.exists else { throw .endpoint([.fromLookup, .notFound]) }
        if to.lower.hasPrefix(source.path.lower + "/") { throw .endpoint([.cantMoveFolderIntoItself]) }
        var target: Resolved
        do { target = try resolve(to) } catch { throw Self.relabel(error, as: .to) }
        if target.exists && target.path.lower == source.path.lower && Self.sameEntry(target.host, source.host) {
            // A case-only rename: `to` found the source itself. Rename it to the new spelling of
            // its last component, as Dropbox does (the folders above keep theirs).
            guard to.name != source.path.name else { return try metadata(source) }
            target = Resolved(host: (source.host as NSString).deletingLastPathComponent + "/" + to.name,
                              path: source.path.parent.appending(to.name), exists: false, isDirectory: source.isDirectory)
        } else if target.exists {
            // Another entry, even one whose name differs only in case (two can exist on a
            // case-sensitive disk): never replaced by a move.
            guard autorename else { throw .endpoint([.to, .conflict, (target.isDirectory ? .folder : .file)]) }
            target = try freeName(near: target, suffix: nil)
        }
        do {
            try makeParents(of: target)
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

    /// Whether two host paths name one directory entry (a case-insensitive disk finds "A.txt"
    /// under "a.txt" too).
    private static func sameEntry(_ a: String, _ b: String) -> Bool {
        var x = stat()
        var y = stat()
        return lstat(a, &x) == 0 && lstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// Re-tags a lookup error for endpoints whose errors sit under another field.
    private static func relabel(_ error: APIError, as field: ErrorTag) -> APIError {
        for tag in [ErrorTag.notFound, .notFolder, .notFile, .malformedPath] where error.isEndpoint([.path, tag]) {
            return .endpoint([field, tag])
        }
        return error
    }
}
