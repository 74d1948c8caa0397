import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A draft handed from one shell to another: the app has a note open with text not saved yet,
/// and `byteclub edit` of the same note resumes that text, adds to it and saves it.
///
/// The app's editor still holds its text over the rev it opened. Merged with the club's new
/// revision from that rev, the lines it shares with the revision (its own, which the shell saved)
/// were an insertion on both sides, a conflict with itself ("yours: (deleted)" against a line
/// nobody deleted). The right base is the text the shell took: the revision was written on it,
/// and so was the editor's. The shell takes the draft in one step (``take(_:)``), so the text
/// the app wrote last is exactly the text taken, and the app asks for it once the draft is gone
/// (``handedOver(_:over:)``): a draft goes only once the club holds its text.
extension DraftStore {
    /// Takes draft `id` over from whichever process wrote it: loads it and writes it again as
    /// this process's own, one step for every other process (the folder's lock). That process
    /// finds the file another's from then on and journals apart (``saveIfOurs(_:)``), so what
    /// it wrote last is what was taken here. Nil when there is no such draft.
    public func take(_ id: String) -> Draft? {
        Self.writes.sync { () -> Draft? in
            crossProcess { () -> Draft? in
                // Taken whole (a loaded draft names no journal): its text in its own file, no longer
                // in a journal the writer goes on appending to, or drops once its draft names another.
                guard let draft = load(id) else { return nil }
                // Written again, the file is a new inode: no longer the writer's (a failed write
                // leaves it theirs, and the text is still the one loaded).
                try? write(draft)
                return draft
            }
        }
    }

    /// The text this process last wrote to draft `id` over `baseRev`, when another process took
    /// the draft since and removed it (it had the club's confirmation of its text, or found it
    /// unchanged): the text that process's revision was written on. Nil otherwise, and for a
    /// draft over another rev (this process moved on since).
    public func handedOver(_ id: String, over baseRev: String?) -> String? {
        Self.writes.sync { () -> String? in
            let file = url(id)
            if let written = Self.ours[mine(file)], FileStamp(file) == nil {
                return written.baseRev == baseRev ? written.text : nil
            }
            guard let written = Self.taken[mine(file)], written.baseRev == baseRev else { return nil }
            return written.text
        }
    }

    /// Forgets what this process had written to draft `id` once another process took it and
    /// removed it: that text was the hand-over of the editor that wrote it, and of no other. An
    /// editor opened afresh on the note (from the server, or from the copy kept here while
    /// offline) has none: its text never held what was handed over, so that text merged as its
    /// base would delete the lines the other shell sent (a line lost in a generated history,
    /// seed 1). A draft file still there is left as it is: its record says whose it is.
    public func forgetHandOver(_ id: String) {
        Self.writes.sync {
            let file = url(id)
            Self.taken[mine(file)] = nil
            if FileStamp(file) == nil { Self.ours[mine(file)] = nil }
        }
    }

    /// Runs `body` holding the drafts folder's lock (`flock` on the folder itself), which every
    /// byteclub process holds to look at a draft file and write or remove it: a look and what
    /// it decides are one step for the others too, so a ``take(_:)`` never misses a write made
    /// between its read and its own. Before the folder exists there is no draft to race for.
    func crossProcess<T>(_ body: () throws -> T) rethrows -> T {
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return try body() }
        defer { close(folder) }
        while flock(folder, LOCK_EX) != 0, errno == EINTR {}
        defer { flock(folder, LOCK_UN) }
        return try body()
    }
}
