import Foundation
import Durable
import Remote
#if canImport(Glibc)
import Glibc
#endif

/// The club cached on disk for offline starts: `$XDG_CACHE_HOME/byteclub/<club key>/`.
///
/// Holds each tab's last listing (with the change cursor it is at and when the server gave it)
/// and the texts of notes that were opened, so the app can start, show its lists (marked stale)
/// and open notes while the server is unreachable.
///
/// The cache is never emptied by a failing server: an empty listing does not replace a
/// non-empty one unless the caller says the change journal deleted every entry, and a damaged
/// file reads as "no cache" but stays on disk. Every write goes through ``DurableFile``, so a
/// crash leaves the old file or the new one, and a file is replaced by a rename, never changed
/// in place, so a listing mapped from it stays whole (``ClubCacheFormat``: a listing is an
/// ``EntryTable``'s bytes, read by mapping them). Unflushed (`flush: false`): what is here is
/// the server's, so an OS crash may roll it back to an older copy, which the next listing
/// brings current; the user's own text is in the drafts and the outbox, which are flushed. A
/// busy disk's flush took seconds, and the list waited behind it.
///
/// Layout:
/// ```
/// <directory>/listing-notes        the Notes tab's listing
/// <directory>/listing-photos       the PanoPhotos tab's listing
/// <directory>/notes/<name>.note    one cached note text; <name> is StorageName of its lowercased path
/// ```
public struct ClubCache: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// A tab's list as the server last gave it.
    public struct Listing: Sendable, Equatable {
        /// Mapped from the file when read (``EntryTable/init(mapping:offset:)``).
        public var entries: EntryTable
        /// The change cursor the entries are at (nil: none).
        public var cursor: RemoteCursor?
        /// When the server gave this list: the "stale since" time shown while offline.
        public var saved: Date

        public init(entries: EntryTable, cursor: RemoteCursor?, saved: Date) {
            self.entries = entries
            self.cursor = cursor
            self.saved = saved
        }

        public init(entries: [RemoteEntry], cursor: RemoteCursor?, saved: Date) {
            self.init(entries: EntryTable(entries), cursor: cursor, saved: saved)
        }
    }

    /// A cached note text, as it was at `rev`.
    public struct Note: Sendable, Equatable {
        /// As displayed, e.g. "/byteclub/Trip plan.txt".
        public var path: String
        public var rev: String?
        public var text: String
        /// When the text was cached (read from or saved to the server).
        public var saved: Date

        public init(path: String, rev: String?, text: String, saved: Date) {
            self.path = path
            self.rev = rev
            self.text = text
            self.saved = saved
        }
    }

    // MARK: Listings

    /// The tab's cached list, or nil when there is none or it cannot be read (a damaged file, a
    /// format from another version). Never throws and never deletes anything.
    public func listing(_ tab: Tab) -> Listing? {
        let fd = open(listingURL(tab).path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        // The mapping outlives the descriptor.
        defer { close(fd) }
        return ClubCacheFormat.readListing(fd)
    }

    /// Replaces the tab's cached list.
    ///
    /// An empty list never replaces a non-empty cached one (nor one that cannot be read, which
    /// may hold entries) unless `emptyIsConfirmed`: the change journal deleted every entry one by
    /// one. A server that is failing can answer an empty listing; trusting it would empty the
    /// cache the offline start depends on (sncli once deleted every note that way).
    /// Each write is atomic, but the look at the cached list and the write are not one step:
    /// save a tab's list from one queue at a time.
    /// - Returns: false when the list was refused (the cache is unchanged).
    @discardableResult
    public func saveListing(_ tab: Tab, _ listing: Listing, emptyIsConfirmed: Bool = false) throws -> Bool {
        try saveListing(tab, parts: [listing.entries], cursor: listing.cursor, saved: listing.saved, emptyIsConfirmed: emptyIsConfirmed)
    }

    /// ``saveListing(_:_:emptyIsConfirmed:)`` of the entries of `parts`, one after the other
    /// (a tab's notes, files and folders), streamed to the file without joining them.
    public func saveListing(_ tab: Tab, parts: [EntryTable], cursor: RemoteCursor?, saved: Date, emptyIsConfirmed: Bool = false) throws -> Bool {
        let url = listingURL(tab)
        if parts.allSatisfy(\.isEmpty), !emptyIsConfirmed, FileManager.default.fileExists(atPath: url.path) {
            guard let cached = self.listing(tab), cached.entries.isEmpty else { return false }
        }
        try DurableFile.write(to: url.path, flush: false) { fd in ClubCacheFormat.writeListing(parts, cursor: cursor, saved: saved, to: fd) }
        return true
    }

    // MARK: Notes

    /// The cached text of the note at `path` (case-insensitive), or nil when none or unreadable.
    public func note(_ path: String) -> Note? {
        guard let data = try? Data(contentsOf: noteURL(path)),
              let note = ClubCacheFormat.decodeNote(data),
              // Very long paths share a hashed file name; never hand back another note's text.
              note.path.lowercased() == path.lowercased() else { return nil }
        return note
    }

    /// Caches a note's text (replacing what was cached for its path, in any case).
    public func saveNote(_ note: Note) throws {
        try DurableFile.write(ClubCacheFormat.encodeNote(note), to: noteURL(note.path), flush: false)
    }

    /// Forgets a note's text after the server deleted it (seen in the change journal). Best effort.
    public func removeNote(_ path: String) {
        try? DurableFile.remove(noteURL(path))
    }

    // MARK: Files

    private func listingURL(_ tab: Tab) -> URL {
        // Spelled out rather than taken from the tab's words, so renaming a tab keeps its cache.
        switch tab {
        case .notes: return directory.appendingPathComponent("listing-notes")
        case .photos: return directory.appendingPathComponent("listing-photos")
        }
    }

    private func noteURL(_ path: String) -> URL {
        directory.appendingPathComponent("notes", isDirectory: true)
            .appendingPathComponent(StorageName.make(path.lowercased()) + ".note")
    }
}
