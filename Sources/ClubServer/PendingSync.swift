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

    /// Flushes the files' bytes, then the folders (``DurableFile/flushTogether(files:folders:holding:)``);
    /// false if a file could not be flushed (a folder that refuses `fsync` is the best effort
    /// ``DurableFile/syncFolder(of:)`` makes).
    func flushFiles() -> Bool {
        for file in files {
            // Starts the writeback now (and drops the pages once written: a history copy is
            // rarely read), so each flush finds its blocks on their way.
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
            close(fd)
        }
        guard let any = folders.min() ?? files.first else { return true }
        return DurableFile.flushTogether(files: files, folders: folders.sorted(), holding: any)
    }
}
