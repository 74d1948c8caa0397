import Durable
import Foundation

/// What a group of commits leaves to flush before any of them is answered: the folders it
/// renamed files into, the history copies it wrote, and its journal records.
///
/// A single commit flushes as it goes (the folder after its rename, the history's copy, the
/// journal), four flushes of the disk's cache for a note. `finish_batch_v2` commits its entries
/// in groups (``FolderStore/commitGroup(_:)``) and flushes each group once, in this order,
/// before it writes the group's answers: every copy's bytes (their writeback started together,
/// so one journal commit of the file system covers them all and each `fdatasync` after the
/// first has little left to wait for), then each folder once, then the journal in one append.
/// A kill or a power cut before the flush loses nothing that was answered; what it leaves is
/// what a crash in the middle of a single commit leaves (the file in place, its record not yet
/// journaled), which the next start's rescan journals.
struct PendingSync {
    /// More files and folders than this are flushed with the file system, in one go.
    static let flushedOneByOneAtMost = 4

    private(set) var folders: Set<String> = []
    private(set) var files: [String] = []
    private(set) var changes: [TreeSnapshot.Change] = []

    /// A file was renamed or linked into `folder`.
    mutating func changed(folder: String) { folders.insert(folder) }

    /// A file was written and renamed into place without a flush.
    mutating func wrote(_ file: String) {
        files.append(file)
        folders.insert((file as NSString).deletingLastPathComponent)
    }

    /// Journal records, appended at the flush.
    mutating func journal(_ more: [TreeSnapshot.Change]) { changes += more }

    /// Flushes the files' bytes, then the folders; false if a file could not be flushed (a folder
    /// that refuses `fsync` is the best effort ``DurableFile/syncFolder(of:)`` makes).
    func flushFiles() -> Bool {
        // Many at once (a batch's group: a copy and a folder or two for each note): the whole
        // file system in one flush of the disk's cache, not one each (DurableFile.flushFileSystem).
        if files.count + folders.count >= Self.flushedOneByOneAtMost, let any = folders.min() ?? files.first {
            if DurableFile.flushFileSystem(holding: any) { return true }
        }
        var descriptors: [Int32] = []
        descriptors.reserveCapacity(files.count)
        defer { for fd in descriptors { close(fd) } }
        var flushed = true
        for file in files {
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                flushed = false
                continue
            }
            // Starts the writeback now (and drops the pages once written: a history copy is
            // rarely read), so the flushes below find the blocks allocated in one journal commit.
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
            descriptors.append(fd)
        }
        for fd in descriptors where !DurableFile.flush(fd, dataOnly: true) { flushed = false }
        for folder in folders.sorted() { DurableFile.syncFolder(of: folder + "/.") }
        return flushed
    }
}
