import Durable
import Foundation

/// Where a club's live journals are (``LiveNote``, one file per note written live here): beside
/// the club's drafts, in the state folder. A draft written while its note is live keeps no text
/// of its own, its journal does (``Draft/liveJournal``), so the journals are the user's unsaved
/// text and never a cache's, which may be cleared at any time.
public enum LiveJournals {
    /// `DRAFTS/live`, for the club `backend` opens. Journals an older byteclub kept in the cache
    /// (`CACHE/live`) are moved there the first time.
    public static func folder(of backend: Backend) -> URL {
        folder(drafts: backend.drafts.directory, olderIn: Paths.cache(backend.key))
    }

    /// `drafts/live`, with `cache/live` moved there when it is there and the new one is not.
    public static func folder(drafts: URL, olderIn cache: URL) -> URL {
        let folder = drafts.appendingPathComponent("live")
        let older = cache.appendingPathComponent("live")
        let manager = FileManager.default
        if !manager.fileExists(atPath: folder.path), manager.fileExists(atPath: older.path) {
            do {
                try PrivateFiles.folder(drafts)
                try manager.moveItem(at: older, to: folder)
                DurableFile.syncFolder(of: folder.path)
            } catch {
                // Left where it was: the note's journal starts again here, as on a new machine.
            }
        }
        return folder
    }
}
