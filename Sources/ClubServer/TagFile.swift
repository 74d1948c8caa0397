import DropboxWire
import Foundation

/// `.byteclub/tags.json`, the file ``TagBook`` is kept in, and the book as this server last read
/// or wrote it.
///
/// Two servers may serve one folder (the app's embedded one and a command's, `byteclub tag` on
/// the embedded club): the book in memory is used only while the file's stamp is the one this
/// server last saw, so a tag the other wrote is answered at once, not only after a restart.
/// Changes are read, made and written under ``MetaLock`` (``change(_:)``), never over another's.
struct TagFile {
    let path: String
    let metaDirectory: String
    let temporaryDirectory: String
    private var book: TagBook?
    private var stamp: FileKey?

    init(metaDirectory: String, temporaryDirectory: String) {
        self.metaDirectory = metaDirectory
        self.temporaryDirectory = temporaryDirectory
        path = metaDirectory + "/tags.json"
    }

    /// The tags as the file holds them now: the book in memory while the file is as this server
    /// last read or wrote it, else read again.
    mutating func loaded() -> TagBook {
        if let book, currentStamp() == stamp { return book }
        stamp = currentStamp()
        let loaded = TagBook(stored: FileManager.default.contents(atPath: path))
        book = loaded
        return loaded
    }

    /// Reads the book again under the lock, lets `edit` change it (it says whether it did) and
    /// writes it whole when it did. A refusal or a failed write leaves file and memory as they were.
    mutating func change<Failure: Error>(_ edit: (inout TagBook) throws(Failure) -> Bool) throws -> Bool {
        try MetaLock.holding(metaDirectory) { () throws -> Bool in
            var changed = loaded()
            guard try edit(&changed) else { return false }
            try FolderFiles.writeJSONDurably(changed.byID, to: path, temporaryDirectory: temporaryDirectory)
            stamp = currentStamp()
            book = changed
            return true
        }
    }

    private func currentStamp() -> FileKey? {
        var info = stat()
        return stat(path, &info) == 0 ? FileKey(info) : nil
    }
}
