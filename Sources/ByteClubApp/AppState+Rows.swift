import Foundation
import Remote
import Synchronization
import TerminalUI

/// The notes list's items and their rows.
public struct NoteListing: Sendable {
    public var items: NoteItems
    /// Made when drawn (``NoteRows``): a change to a 100,000-note list formats the rows on
    /// screen, not 100,000 sizes, dates and titles.
    public var rows: NoteRows
    /// When a relative time ("just now", "5 min ago") of a row drawn so far next reads
    /// otherwise: the screen is out of date from then (nil: never, as far as the times go).
    public var nextChange: Date? { rows.nextChange }

    public init(items: NoteItems, rows: NoteRows) {
        self.items = items
        self.rows = rows
    }

    /// The notes list of `state`, in the folder it shows: the way up (below the top), the
    /// folders in it, drafts of notes the server does not have, then the notes.
    public static func make(_ state: AppState, format: DisplayFormat) -> NoteListing {
        let here = state.notesFolder
        var draftsByPath: [String: Draft] = [:]
        for draft in state.drafts {
            if let path = draft.path?.lowercased(), draftsByPath[path] == nil { draftsByPath[path] = draft }
        }
        // Until the list has loaded, a draft's note may well be there: show it once we know.
        // The server's paths are only gathered when a draft of a listed note could be missing.
        let known: Set<String> = state.notes.hasLoaded && !draftsByPath.isEmpty ? Set(state.notes.entries.indices.map(state.notes.entries.pathLower(at:))) : []
        let orphans = state.drafts.filter { draft in
            guard let path = draft.path else { return (draft.folder?.lowercased() ?? here.root.lowercased()) == here.pathLower }
            return state.notes.hasLoaded && !known.contains(path.lowercased()) && here.holds(path.lowercased())
        }
        var head: [NoteItem] = here.isRoot ? [] : [.folder(FolderItem(path: here.parent, name: "..", notes: 0, isParent: true))]
        head += state.notes.childFolders(of: here).map { NoteItem.folder($0) }
        head += orphans.map { NoteItem.draft($0) }
        // The folder's other files after its notes, by name.
        let tail = state.notes.files(in: here.pathLower).sorted { $0.pathLower < $1.pathLower }.map { NoteItem.file($0) }
        let items = NoteItems(head: head, notes: state.notes.entries,
                              positions: state.tags.pinnedFirst(state.notes.notePositions(in: here.pathLower), of: state.notes.entries),
                              drafted: Set(draftsByPath.keys), tail: tail)
        return NoteListing(items: items, rows: NoteRows(items, format: format, offline: state.offline, tags: state.tags))
    }

    /// Every row of `items`, made at once (short lists and tests).
    static func rows(_ items: [NoteItem], format: DisplayFormat, offline: OfflineState = OfflineState(), tags: NoteTags = NoteTags()) -> [ListRow] {
        let rows = NoteRows(NoteItems(items), format: format, offline: offline, tags: tags)
        return items.indices.map(rows.row)
    }

    /// A draft of a note the server lacks reads "✎ title (draft)"; a note with a draft is marked "✎".
    /// What waits in the outbox is marked "⇡" instead: "⇡ title (waiting)" for a new note.
    /// A pinned note is marked "⚑" and its tags follow the title ("Trip  #boat #sea").
    static func row(_ item: NoteItem, format: DisplayFormat, offline: OfflineState, tags: NoteTags) -> ListRow {
        switch item {
        case .draft(let draft):
            let title = draft.title.isEmpty ? "untitled" : draft.title
            let waiting = offline.pendingDrafts.contains(draft.id)
            return ListRow([(waiting ? "⇡ " : "✎ ") + title + (waiting ? " (waiting)" : " (draft)"), ByteFormat.size(Int64(draft.body.utf8.count)),
                            format.relative(draft.updated)],
                           searchText: title)
        case .note(let entry, let hasDraft):
            let title = ClubLayout.title(of: entry.name)
            let mark = offline.isPending(entry) ? "⇡ " : hasDraft ? "✎ " : ""
            let itemTags = tags.of(entry)
            let pin = itemTags.isPinned ? NoteTags.pinMark + " " : ""
            let shown = itemTags.visible.map { "#" + TerminalSafe.escape($0) }.joined(separator: " ")
            return ListRow([pin + mark + title + (shown.isEmpty ? "" : "  " + shown), ByteFormat.size(entry.size), format.relative(entry.modified)],
                           searchText: title, tags: itemTags.visible)
        case .folder(let folder) where folder.isParent:
            return ListRow([FolderItem.upMark + " ..", "", ""], searchText: "..")
        case .folder(let folder):
            let name = TerminalSafe.escape(folder.name)
            // "3 notes · 2 files" where it holds other files too (the files in the date's column).
            let files = folder.files == 0 ? "" : "· \(folder.files) file\(folder.files == 1 ? "" : "s")"
            return ListRow([FolderItem.mark + " " + name + "/", "\(folder.notes) note\(folder.notes == 1 ? "" : "s")", files], searchText: name)
        case .file(let entry):
            let name = TerminalSafe.escape(entry.name)
            return ListRow([NoteItem.fileMark + " " + name, ByteFormat.size(entry.size), format.relative(entry.modified)], searchText: name)
        }
    }

    /// What `/` filters an item by: its row's search and tag keys, without its cells.
    static func filterKeys(_ item: NoteItem, tags: NoteTags) -> ListRow {
        switch item {
        case .draft(let draft): ListRow([], searchText: draft.title.isEmpty ? "untitled" : draft.title)
        case .note(let entry, _): ListRow([], searchText: ClubLayout.title(of: entry.name), tags: tags.of(entry).visible)
        case .folder(let folder) where folder.isParent: ListRow([], searchText: "..")
        case .folder(let folder): ListRow([], searchText: TerminalSafe.escape(folder.name))
        case .file(let entry): ListRow([], searchText: TerminalSafe.escape(entry.name))
        }
    }
}

/// The notes list's rows, each made when it is drawn from its item (``NoteListing/row(_:format:offline:tags:)``).
/// The filter's keys are made once, the first time a filter asks, and the last filter's answer
/// is kept: a filtered frame asks several times.
public struct NoteRows: ListRows, RandomAccessCollection {
    let items: NoteItems
    let format: DisplayFormat
    let offline: OfflineState
    let tags: NoteTags
    private let filtering = Filtering()

    /// Shared by the copies of one listing's rows, as the listing is one list.
    private final class Filtering: Sendable {
        struct Found {
            var keys: [ListRow]?
            var last: (needle: String, rows: [Int])?
            /// The relative times of the rows made so far (``nextChange``).
            var times = RelativeTimes()
        }
        let found = Mutex(Found())
    }

    init(_ items: NoteItems, format: DisplayFormat, offline: OfflineState, tags: NoteTags) {
        self.items = items
        self.format = format
        self.offline = offline
        self.tags = tags
    }

    public var count: Int { items.count }
    public var startIndex: Int { 0 }
    public var endIndex: Int { items.count }
    /// Row `index`, made now (as ``row(_:)``): a pass over them all makes every row.
    public subscript(index: Int) -> ListRow { row(index) }

    public func row(_ index: Int) -> ListRow {
        let item = items[index]
        let moment: Date?
        switch item {
        case .draft(let draft): moment = draft.updated
        case .note(let entry, _), .file(let entry): moment = entry.modified
        case .folder: moment = nil
        }
        if let moment { filtering.found.withLock { $0.times.drew(moment, format: format) } }
        return NoteListing.row(item, format: format, offline: offline, tags: tags)
    }

    /// When a relative time of a row made so far next reads otherwise.
    public var nextChange: Date? { filtering.found.withLock { $0.times.next } }

    /// ``nextChange``, forgetting the rows made so far: a frame takes the times of the rows it drew.
    public func takeNextChange() -> Date? {
        filtering.found.withLock { found in
            defer { found.times = RelativeTimes() }
            return found.times.next
        }
    }

    public func rows(matching needle: String) -> [Int] {
        filtering.found.withLock { filtering in
            if let last = filtering.last, last.needle == needle { return last.rows }
            let keys = filtering.keys ?? items.map { NoteListing.filterKeys($0, tags: tags) }
            filtering.keys = keys
            let rows = keys.indices.filter { keys[$0].matches(lowercased: needle) }
            filtering.last = (needle, rows)
            return rows
        }
    }
}

extension NoteListing {
    /// What the listing depends on besides the clock: a 100,000-note list's items (its folders
    /// counted, its notes in order) take a pass over every entry, too much for every key and
    /// frame, so the listing is kept until this changes or a relative time in its rows would
    /// read otherwise (``nextChange``).
    struct Signature: Equatable {
        var entries: Int
        var loaded: Bool
        var drafts: [String]
        var offline: OfflineState
        var tags: Int
        var folder: NotesFolder

        init(_ state: AppState) {
            folder = state.notesFolder
            tags = state.tags.version
            entries = state.notes.version
            loaded = state.notes.hasLoaded
            drafts = state.drafts.map { "\($0.id) \($0.updated.timeIntervalSince1970) \($0.title) \($0.body.utf8.count)" }
            offline = state.offline
        }
    }
}

/// Rows and selections, computed from the state alone.
extension AppState {
    /// The photos list's rows (the screen draws thumbnails beside them).
    public var photoRows: [ListRow] { photoRows(photoItems) }

    /// The photo under the selection (nil on an album's row).
    public var selectedPhoto: RemoteEntry? {
        guard case .photo(let entry)? = selectedPhotoItem else { return nil }
        return entry
    }

    /// The notes item under the selection, in `listing` (the notes list of this state).
    public func selectedNoteItem(in listing: NoteListing) -> NoteItem? {
        guard let index = notes.list.selectedRow(in: listing.rows), listing.items.indices.contains(index) else { return nil }
        return listing.items[index]
    }

    /// The selected item's path in `tab`, to keep the selection across a refresh.
    func selectedPath(_ tab: Tab, notes listing: NoteListing) -> String? {
        switch tab {
        case .notes:
            switch selectedNoteItem(in: listing) {
            case .note(let entry, _)?, .file(let entry)?: return entry.pathLower
            case .folder(let folder)? where !folder.isParent: return folder.path.lowercased()
            default: return nil
            }
        case .photos:
            return selectedPhoto?.pathLower
        }
    }

    /// Selects the notes row of the note at `path` (lowercased), or else the row of the draft
    /// `draftID` (a note the server does not have yet), if either is listed.
    mutating func reselectNote(path: String?, draftID: String, notes listing: NoteListing) {
        let index = listing.items.firstIndex { item in
            switch item {
            case .note(let entry, _): return path != nil && entry.pathLower == path
            case .draft(let draft): return draft.id == draftID
            case .folder, .file: return false
            }
        }
        guard let index else { return }
        notes.list.select(row: index, in: listing.rows)
    }

    /// Selects the row of `path` (lowercased) in `tab`, if it is listed.
    mutating func reselect(_ tab: Tab, path: String, notes listing: NoteListing) {
        let index: Int?
        let rows: any ListRows
        switch tab {
        case .notes:
            rows = listing.rows
            index = listing.items.index(ofPath: path)
        case .photos:
            let items = photoItems
            rows = photoRows(items)
            index = items.firstIndex { $0.key == path }
        }
        guard let index else { return }
        self[tab].list.select(row: index, in: rows)
    }
}
