import Durable
import Foundation

/// `ids.json` and `content-hashes`, the folder's id index and hash cache, written whole under
/// ``MetaLock`` and merged with what another server over the folder wrote meanwhile (how is
/// ``IdentifierBook``'s and ``HashBook``'s to say). Owned by the ``FolderStore`` actor.
///
/// It remembers each file as this server last wrote it: a file unchanged since (no other
/// server wrote it) need not be read again before the next write.
struct CacheFiles {
    let metaDirectory: String
    let temporaryDirectory: String
    private var writtenStamps: [String: FileKey] = [:]

    init(metaDirectory: String, temporaryDirectory: String) {
        self.metaDirectory = metaDirectory
        self.temporaryDirectory = temporaryDirectory
    }

    /// Writes the hash cache if it changed, with the hashes another server wrote kept.
    mutating func write(_ hashes: inout HashBook) {
        guard hashes.isDirty else { return }
        MetaLock.holding(metaDirectory) {
            let path = metaDirectory + "/content-hashes"
            let text = hashes.text(mergingDisk: isAsWritten(path) ? nil : FolderFiles.readHashes(path))
            replace(path, with: Data(text.utf8))
        }
    }

    /// Writes the id index if it changed, merged with what another server wrote since this one
    /// read it.
    mutating func write(_ identifiers: inout IdentifierBook) {
        guard identifiers.isDirty else { return }
        MetaLock.holding(metaDirectory) {
            let path = metaDirectory + "/ids.json"
            let disk = isAsWritten(path) ? identifiers.lastWritten : FolderFiles.readIdentifiers(metaDirectory)
            guard let data = try? JSONEncoder().encode(identifiers.merge(disk: disk)) else { return }
            replace(path, with: data)
        }
    }

    /// A cache file replaced whole (``DurableFile`` without its flush: losing a cache costs work,
    /// not data), its stamp noted.
    private mutating func replace(_ path: String, with data: Data) {
        if (try? DurableFile.write(data, to: path, permissions: 0o644, temporaryDirectory: temporaryDirectory, flush: false)) != nil {
            var info = stat()
            writtenStamps[path] = stat(path, &info) == 0 ? FileKey(info) : nil
        }
    }

    /// Whether `path` is still as this server wrote it (MetaLock held).
    private func isAsWritten(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && writtenStamps[path] == FileKey(info)
    }
}
