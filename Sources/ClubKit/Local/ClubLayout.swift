import Remote

/// Where the club keeps things in its folder: notes in `/byteclub`, photos in `/byteclub/photos`.
public struct ClubLayout: Sendable, Equatable {
    /// The app folder.
    public var folder: String
    public static let noteExtensions = ["txt", "md"]
    /// The pictures PanoPhotos lists and draws (Imaging's `PictureFormat.fileExtensions`; a
    /// test keeps the two lists the same).
    public static let photoExtensions = ["jpg", "jpeg", "png", "gif", "webp", "svg"]
    /// What saving adds to a new note's title that has no extension: notes are Markdown, and
    /// config.toml's `new_note_extension = "txt"` keeps the old plain-text way.
    public var newNoteExtension: String

    public init(folder: String = "/byteclub", newNoteExtension: String = "md") {
        self.folder = folder
        self.newNoteExtension = newNoteExtension
    }

    public var photosFolder: String { folder + "/photos" }

    /// The folder `tab` lists: the notes' folder, or the photos' inside it.
    public func folder(of tab: Tab) -> String { tab == .notes ? folder : photosFolder }

    /// The entries `tab` lists, sorted for display (the Notes tab's attachments after its notes
    /// and folders). A missing folder is an empty list. `partial`
    /// hears how far the Notes tab's listing has got while a big one pages in (its first page's
    /// notes sorted for display).
    public func fetch(_ tab: Tab, from store: any RemoteStore, partial: (@Sendable (ListingProgress) -> Void)? = nil) async throws(RemoteError) -> [RemoteEntry] {
        try await fetchListing(tab, from: store, partial: partial).all
    }

    /// ``fetch(_:from:partial:)`` as the app keeps it: the Notes tab's notes go into a table
    /// as the listing's pages arrive and are sorted there, so a 100,000-note listing is never
    /// an array of every entry beside its table (issue 56).
    public func fetchListing(_ tab: Tab, from store: any RemoteStore,
                             partial: (@Sendable (ListingProgress) -> Void)? = nil) async throws(RemoteError) -> TabListing {
        do throws(RemoteError) {
            switch tab {
            case .notes:
                var pages = NotesPages(layout: self)
                do throws(RemoteError) {
                    try await store.listRecursively(folder, into: &pages, partial: Self.notesSoFar(partial, layout: self))
                } catch {
                    // The table's buffers are freed by hand: a builder is not a class.
                    pages.discard()
                    throw error
                }
                return pages.listing()
            case .photos:
                let photos = Self.sortedPhotos(try await store.search(in: photosFolder, extensions: Self.photoExtensions))
                return TabListing(entries: EntryTable(photos), folders: [], files: [])
            }
        } catch .notFound {
            return TabListing(entries: EntryTable(), folders: [], files: [])
        }
    }

    private static func notesSoFar(_ partial: (@Sendable (ListingProgress) -> Void)?, layout: ClubLayout) -> (@Sendable (ListingProgress) -> Void)? {
        guard let partial else { return nil }
        return { progress in partial(ListingProgress(firstPage: progress.firstPage.map(layout.notesTree), count: progress.count)) }
    }

    /// The Notes tab's entries of a recursive listing: the notes at any depth, newest first,
    /// then the folders that may hold them, by path (``isInNotes(_:)``).
    public func notesTree(_ entries: [RemoteEntry]) -> [RemoteEntry] {
        let kept = entries.filter(isInNotes)
        return Self.sortedNotes(kept) + kept.filter { $0.kind == .folder }.sorted { $0.pathLower < $1.pathLower }
    }

    /// Whether `entry` belongs in the Notes tab: a note (`.txt`, `.md`) or a folder anywhere
    /// under the club folder, except the photos folder and hidden folders (`.byteclub`, a
    /// vault's `.obsidian`) and what is in them.
    public func isInNotes(_ entry: RemoteEntry) -> Bool {
        isAmongNotes(entry) && (entry.kind == .folder || Self.hasExtension(entry.name, in: Self.noteExtensions))
    }

    /// Whether `entry` is a file of the Notes tab other than a note: an attachment a vault keeps
    /// beside its notes (a PDF, a canvas, audio), where a note could be (``isInNotes(_:)``).
    public func isAttachment(_ entry: RemoteEntry) -> Bool {
        entry.kind == .file && !Self.hasExtension(entry.name, in: Self.noteExtensions) && isAmongNotes(entry)
    }

    /// Under the club folder, outside the photos folder and hidden folders.
    private func isAmongNotes(_ entry: RemoteEntry) -> Bool {
        let root = folder.lowercased() + "/"
        guard entry.pathLower.hasPrefix(root) else { return false }
        let relative = entry.pathLower.dropFirst(root.count)
        if relative == "photos" || relative.hasPrefix("photos/") { return false }
        return !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") })
    }

    /// Notes are the `.txt` and `.md` files of a listing, newest first.
    public static func sortedNotes(_ entries: [RemoteEntry]) -> [RemoteEntry] {
        newestFirst(entries.filter { $0.kind == .file && hasExtension($0.name, in: noteExtensions) })
    }

    /// Photos are the pictures (JPEG, PNG, GIF, WebP, SVG) under the photos folder, newest first.
    public static func sortedPhotos(_ entries: [RemoteEntry]) -> [RemoteEntry] {
        newestFirst(entries.filter { $0.kind == .file && hasExtension($0.name, in: photoExtensions) })
    }

    /// Newest first; files of the same time by path, so the order is stable.
    public static func newestFirst(_ entries: [RemoteEntry]) -> [RemoteEntry] {
        var sorted = entries
        sortNewestFirst(&sorted)
        return sorted
    }

    /// ``newestFirst(_:)`` in place.
    public static func sortNewestFirst(_ entries: inout [RemoteEntry]) {
        entries.sort { a, b in
            let da = a.modified ?? .distantPast, db = b.modified ?? .distantPast
            return da != db ? da > db : a.pathLower < b.pathLower
        }
    }

    /// A note's title: its name without the extension.
    public static func title(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    public static func hasExtension(_ name: String, in extensions: [String]) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// ``hasExtension(_:in:)`` of the name at `position` of `table`, read where the table holds
    /// it: a first frame from the cache asks it of every cached entry, and made a String of each
    /// name (22 ms of a 100,000-note club's start, by `perf`). An extension of ASCII letters is
    /// compared byte by byte, case folded; any other (a byte above 127 after the last dot) is
    /// left to ``hasExtension(_:in:)``, whose Unicode lower-casing it then is.
    public static func hasExtension(ofNameAt position: Int, in table: EntryTable, _ extensions: [String]) -> Bool {
        let quick = table.withBytes(.name, at: position) { bytes -> Bool? in
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return false }
            let suffix = bytes[(dot + 1)...]
            guard suffix.allSatisfy({ $0 < 0x80 }) else { return nil }
            return extensions.contains { candidate in
                candidate.utf8.count == suffix.count && zip(candidate.utf8, suffix).allSatisfy { wanted, byte in
                    wanted == ((byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte)
                }
            }
        }
        // No name (the String's is "") or a non-ASCII extension: the String's answer.
        return (quick ?? nil) ?? hasExtension(table.name(at: position), in: extensions)
    }
}
