import Durable
import Foundation

/// `ids.json` (with `ids.log`) and `content-hashes`, the folder's id index and hash cache,
/// written under ``MetaLock`` and merged with what another server over the folder wrote
/// meanwhile (how is ``IdentifierBook``'s and ``HashBook``'s to say). Owned by the
/// ``FolderStore`` actor.
///
/// The ids are `ids.json`, written whole, and `ids.log` after it: a line for each path whose id
/// changed since (`["path","id"]`, or `["path",null]` when it has none now), the later line
/// standing. New ids are appended while both files are as this server left them, so a commit
/// into a 100,000-note club writes its own line, not the 100,000 (issue 56: 36% of the server's
/// time in a `put -r` there); the log is folded into `ids.json` once it holds a quarter as many
/// lines as there are ids (at least 10,000: a start reads each line), or when another server
/// wrote either file (then the two are merged).
///
/// It remembers each file as this server last wrote it: a file unchanged since (no other
/// server wrote it) need not be read again before the next write.
struct CacheFiles {
    let metaDirectory: String
    let temporaryDirectory: String
    private var writtenStamps: [String: FileKey] = [:]
    /// Lines in `ids.log` as this server left it.
    private var logLines = 0
    /// Lines in `content-hashes` as this server left it.
    private var hashLines = 0
    /// Files this server removed (`ids.log` after folding it in): as written while still missing.
    private var removed: Set<String> = []

    init(metaDirectory: String, temporaryDirectory: String) {
        self.metaDirectory = metaDirectory
        self.temporaryDirectory = temporaryDirectory
    }

    /// Writes the hash cache if it changed, with the hashes another server wrote kept: the
    /// versions learnt since are appended while the file is as this server left it and holds no
    /// more than twice the book's lines (at least 10,000); otherwise it is written whole (then
    /// past its limit, with only the versions used this run).
    mutating func write(_ hashes: inout HashBook) {
        guard hashes.isDirty else { return }
        MetaLock.holding(metaDirectory) {
            let path = metaDirectory + "/content-hashes"
            let asWritten = isAsWritten(path)
            if asWritten, writtenStamps[path] != nil, hashLines + hashes.learntCount <= max(10_000, 2 * hashes.count) {
                let added = hashes.learntCount
                if append(hashes.appendedText(), to: path) {
                    hashLines += added
                    return
                }
            }
            let text = hashes.text(mergingDisk: asWritten ? nil : FolderFiles.readHashes(path))
            replace(path, with: text)
            hashLines = hashes.count
        }
    }

    /// Writes the ids that changed: appended to `ids.log` while it and `ids.json` are as this
    /// server left them, otherwise merged with what another server wrote and written whole.
    mutating func write(_ identifiers: inout IdentifierBook) {
        guard identifiers.isDirty else { return }
        MetaLock.holding(metaDirectory) {
            let json = metaDirectory + "/" + FolderFiles.identifiersFile, log = metaDirectory + "/" + FolderFiles.identifiersLog
            let asWritten = isAsWritten(json) && isAsWritten(log)
            let count = identifiers.changeCount
            if asWritten, logLines + count <= max(10_000, identifiers.ids.count / 4),
               append(identifiers.changes.map { FolderFiles.identifierLine($0.pathLower, $0.id) }.joined(), to: log) {
                logLines += count
                identifiers.settle()
                return
            }
            // Both files as this server left them hold its ids but for the changes: nothing to
            // read back and merge (reading them was a tenth of a first listing of 100,000 files).
            let merged: [String: String]
            if asWritten {
                identifiers.settle()
                merged = identifiers.ids
            } else {
                merged = identifiers.merge(disk: FolderFiles.readIdentifiers(metaDirectory))
            }
            replace(json, with: FolderFiles.identifiersJSON(merged))
            unlink(log)
            writtenStamps[log] = nil
            removed.insert(log)
            logLines = 0
        }
    }

    /// Appends `text` to `path` (made if missing), its stamp noted; false when it could not.
    private mutating func append(_ text: String, to path: String) -> Bool {
        append(Array(text.utf8), to: path)
    }

    private mutating func append(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = PrivateFiles.open(path, O_WRONLY | O_APPEND | O_CREAT)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let written = DurableFile.writeAll(fd, bytes)
        var info = stat()
        writtenStamps[path] = fstat(fd, &info) == 0 ? FileKey(info) : nil
        removed.remove(path)
        return written
    }

    /// A cache file replaced whole (``DurableFile`` without its flush: losing a cache costs work,
    /// not data), its stamp noted.
    private mutating func replace(_ path: String, with data: Data) {
        if (try? DurableFile.write(data, to: path, temporaryDirectory: temporaryDirectory, flush: false)) != nil {
            var info = stat()
            writtenStamps[path] = stat(path, &info) == 0 ? FileKey(info) : nil
        }
    }

    /// Whether `path` is still as this server wrote it (MetaLock held); a file this server
    /// removed (or never wrote) is as written while it is still missing.
    private func isAsWritten(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT && removed.contains(path) }
        return writtenStamps[path] == FileKey(info)
    }
}
