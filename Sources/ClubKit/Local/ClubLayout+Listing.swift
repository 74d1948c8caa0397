import Remote

/// A tab's list as a load gives it: its entries in display order (the Notes tab's notes newest
/// first, the PanoPhotos tab's photos), and the Notes tab's folders and other files apart, by
/// path.
public struct TabListing: Sendable, Equatable {
    /// The notes (or photos), newest first, as a table of bytes (``EntryTable``).
    public var entries: EntryTable
    /// The folders that may hold notes, by path (the Notes tab's only).
    public var folders: [RemoteEntry]
    /// The Notes tab's files that are not notes (a vault's PDFs, canvases), by path.
    public var files: [RemoteEntry]

    public init(entries: EntryTable, folders: [RemoteEntry], files: [RemoteEntry]) {
        self.entries = entries
        self.folders = folders
        self.files = files
    }

    /// A list already in display order (``ClubLayout/fetch(_:from:partial:)``'s), split the same
    /// way: folders apart, and in the Notes tab the files that are not notes.
    public init(displayOrder listed: [RemoteEntry], tab: Tab) {
        var table = EntryTable.Builder(capacity: listed.count)
        var others: [RemoteEntry] = [], folders: [RemoteEntry] = []
        for entry in listed {
            if entry.kind == .folder {
                folders.append(entry)
            } else if tab != .notes || ClubLayout.hasExtension(entry.name, in: ClubLayout.noteExtensions) {
                table.append(entry)
            } else {
                others.append(entry)
            }
        }
        self.init(entries: table.build(), folders: folders, files: tab == .notes ? others : [])
    }

    /// Everything, in display order: the entries, then the folders, then the other files.
    public var all: [RemoteEntry] { Array(entries) + folders + files }
}

/// The Notes tab's listing, taken a page at a time: each note into a table as it comes, the
/// folders and attachments apart; at the end the table is sorted newest first by moving its
/// records only (``EntryTable/reordered(_:)``).
struct NotesPages: ListingPages {
    let layout: ClubLayout
    private var notes = EntryTable.Builder()
    private var folders: [RemoteEntry] = []
    private var attachments: [RemoteEntry] = []

    init(layout: ClubLayout) { self.layout = layout }

    mutating func take(_ page: [RemoteEntry]) {
        for entry in page {
            if layout.isInNotes(entry) {
                if entry.kind == .folder { folders.append(entry) } else { notes.append(entry) }
            } else if layout.isAttachment(entry) {
                attachments.append(entry)
            }
        }
    }

    mutating func restart() {
        notes.removeAll()
        folders = []
        attachments = []
    }

    /// Frees the notes taken so far, for a listing that failed part-way.
    consuming func discard() {
        notes.discard()
    }

    consuming func listing() -> TabListing {
        let table = notes.build()
        folders.sort { $0.pathLower < $1.pathLower }
        attachments.sort { $0.pathLower < $1.pathLower }
        return TabListing(entries: table.reordered(table.positionsNewestFirst()), folders: folders, files: attachments)
    }
}
