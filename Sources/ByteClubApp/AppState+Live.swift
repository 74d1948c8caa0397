import Foundation
import Remote
import TerminalUI

/// What one change page did to a list, as the status bar tells it: `ray added "Trip plan"`.
public struct LiveEvent: Equatable, Sendable {
    public enum Kind: String, Sendable { case added, changed, renamed, deleted, renamedFolder }

    public var kind: Kind
    /// The item as it is now (for a deletion, as it was; for a folder's move, the folder).
    public var entry: RemoteEntry
    /// A renamed item's entry before the rename.
    public var previous: RemoteEntry?
    /// Who made the change, as the server names them (an account id), where it can say: the
    /// author of an addition or a change; of a move, the member who moved it when the move
    /// made a revision (``ChangeMoves/mover(from:to:)``: a plain move keeps the last writer's
    /// name, who need not be the mover); nil for a deletion, which the list does not attribute
    /// (``LiveUpdates`` asks the server who deleted it).
    public var modifiedBy: String?

    public init(kind: Kind, entry: RemoteEntry, previous: RemoteEntry? = nil) {
        let author: String?
        switch kind {
        case .added, .changed: author = entry.modifiedBy
        case .renamed: author = previous.flatMap { ChangeMoves.mover(from: $0, to: entry) }
        case .deleted, .renamedFolder: author = nil
        }
        self.init(kind: kind, entry: entry, previous: previous, modifiedBy: author)
    }

    public init(kind: Kind, entry: RemoteEntry, previous: RemoteEntry?, modifiedBy: String?) {
        self.kind = kind
        self.entry = entry
        self.previous = previous
        self.modifiedBy = modifiedBy
    }

    /// What the status bar says, with `who` the author's display name (or nil): names are the
    /// server's, so they go through TerminalSafe.
    public func sentence(by who: String?, tab: Tab) -> String {
        func shown(_ entry: RemoteEntry) -> String {
            "\"" + TerminalSafe.escape(tab == .notes && entry.kind == .file ? ClubLayout.title(of: entry.name) : entry.name) + "\""
        }
        func parent(_ entry: RemoteEntry) -> String { (entry.path as NSString).deletingLastPathComponent }
        let what: String
        switch kind {
        case .added: what = "added " + shown(entry)
        case .changed: what = "changed " + shown(entry)
        case .deleted: what = "deleted " + shown(entry)
        case .renamed where previous.map({ $0.name == entry.name && $0.pathLower != entry.pathLower }) ?? false:
            // The same name in another folder: a move.
            what = "moved " + shown(entry) + " to " + TerminalSafe.escape((parent(entry) as NSString).lastPathComponent) + "/"
        case .renamed: what = "renamed " + shown(previous ?? entry) + " to " + shown(entry)
        case .renamedFolder where previous.map({ $0.name == entry.name && parent($0).lowercased() != parent(entry).lowercased() }) ?? false:
            what = "moved folder " + shown(entry) + " to " + TerminalSafe.escape((parent(entry) as NSString).lastPathComponent) + "/"
        case .renamedFolder: what = "renamed folder " + shown(previous ?? entry) + " to " + shown(entry)
        }
        guard let who else {
            // No author the server could name: "Someone deleted …" reads as well as anything we could guess.
            return "Someone " + what
        }
        // Your own change, made elsewhere (LiveUpdates.author): "You changed …".
        return (who == LiveUpdates.you ? "You" : TerminalSafe.escape(who)) + " " + what
    }
}

/// Applying a change page (a longpoll's delta) to a list: entries added, replaced, renamed and
/// removed in place, with the selection kept on the same item and the scroll position kept
/// with it, so a list that changes under the user never jumps.
extension AppState {
    /// Applies `changes` to `tab`'s list and returns what they did, in order (changes that are
    /// no news, such as a rev the list already has, return nothing and change nothing).
    ///
    /// The selected item stays selected (by path, following a rename) and stays on the same
    /// screen row: the scroll offset moves by as much as the item moved. When the selected
    /// item is deleted, the selection stays at the same position. `before` is the notes list
    /// of this state if the caller already has it (the model keeps one).
    public mutating func applyChanges(_ tab: Tab, _ changes: [RemoteChange], layout: ClubLayout, format: DisplayFormat,
                                      before: NoteListing? = nil) -> [LiveEvent] {
        let counts = self[tab].pathCounts.counts ?? PathCounts(self[tab].entries)
        var entries = ListEdit(self[tab].entries, known: counts)
        let listing = self[tab]
        /// Whether the list holds entries inside `pathLower` (its folder index knows, without a pass).
        func holdsEntries(in pathLower: String) -> Bool {
            tab == .photos || listing.folderIndex.index.answer(listing) { index in
                index.notes[Substring(pathLower)] != nil || index.children[Substring(pathLower)] != nil
            }
        }
        // Folders change the list (a folder made, renamed or deleted by another member shows at
        // once) but are no news of their own: their notes' events say what happened.
        var folders = self[tab].folders
        // Attachments change their folders' rows, and are no news of their own either.
        var files = self[tab].files
        var events: [LiveEvent] = []
        /// Each folder a deletion took: the folder as it was, and the items it held.
        var deletedFolders: [(folder: RemoteEntry, gone: [RemoteEntry])] = []
        for change in changes {
            switch change {
            case .deleted(_, let path, let pathLower):
                let inside = pathLower + "/"
                let folder = folders.first { $0.pathLower == pathLower }
                folders.removeAll { $0.pathLower == pathLower || $0.pathLower.hasPrefix(inside) }
                files.removeAll { $0.pathLower == pathLower || $0.pathLower.hasPrefix(inside) }
                let gone = entries.removeAll(pathLower: pathLower, inFolder: holdsEntries(in: pathLower))
                if folder != nil || gone.contains(where: { $0.pathLower.hasPrefix(inside) }) {
                    deletedFolders.append((folder ?? ChangeMoves.folder(at: pathLower, shownAs: path), gone))
                }
                guard !gone.isEmpty else { continue }
                events += gone.map { LiveEvent(kind: .deleted, entry: $0) }
            case .updated(let entry) where entry.kind == .folder:
                if Self.belongs(entry, in: tab, layout: layout), !folders.contains(where: { $0.pathLower == entry.pathLower }) {
                    folders.append(entry)
                }
            case .updated(let entry) where tab == .notes && layout.isAttachment(entry):
                files.removeAll { $0.pathLower == entry.pathLower }
                files.append(entry)
            case .updated(let entry):
                guard Self.belongs(entry, in: tab, layout: layout) else { continue }
                if let old = entries.entry(at: entry.pathLower) {
                    guard old.rev != entry.rev || old.name != entry.name || old.size != entry.size else { continue }
                    entries.put(entry)
                    events.append(LiveEvent(kind: old.name == entry.name ? .changed : .renamed, entry: entry, previous: old))
                } else {
                    entries.put(entry)
                    events.append(LiveEvent(kind: .added, entry: entry))
                }
            }
        }
        // What is there now, only when a folder went: a list of 100,000 notes is not copied a page.
        events = Self.foldMoves(events, deletedFolders: deletedFolders, present: deletedFolders.isEmpty ? [] : entries.current + folders)
        files.sort { $0.pathLower < $1.pathLower }
        if folders != self[tab].folders || files != self[tab].files {
            self[tab].folders = folders.sorted { $0.pathLower < $1.pathLower }
            self[tab].files = files
            if events.isEmpty {
                self[tab].version += 1
                // The notes themselves did not change: nothing for the index, but no gap either.
                self[tab].logChange(changed: [], removed: [])
            }
        }
        guard !events.isEmpty else {
            // The entries did not change: the counts made for this page serve the next.
            self[tab].pathCounts.counts = counts
            return []
        }

        // Where the selection is now, by item.
        let list = self[tab].list
        // Keys are made for the selected item only: a 100,000-note list's are not made twice a page.
        let oldKey: (Int) -> String, oldRows: any ListRows
        if tab == .notes {
            let listing = before ?? NoteListing.make(self, format: format)
            (oldKey, oldRows) = (listing.items.key, listing.rows)
        } else {
            let items = photoItems
            (oldKey, oldRows) = ({ items[$0].key }, photoRows(items))
        }
        let oldVisible = list.visibleIndices(in: oldRows)
        var selectedKey = oldVisible.indices.contains(list.selected) ? oldKey(oldVisible[list.selected]) : nil
        for event in events where event.kind == .renamed && selectedKey == event.previous?.pathLower {
            selectedKey = event.entry.pathLower
        }
        for event in events where event.kind == .renamedFolder {
            guard let from = event.previous?.pathLower, let key = selectedKey else { continue }
            // The folder's row (named by its path inside the club's folder), or a note inside
            // it, follows the folder.
            let club = layout.folder.lowercased()
            func inClub(_ path: String) -> String { path.hasPrefix(club + "/") ? String(path.dropFirst(club.count)) : path }
            if key == "folder:" + inClub(from) {
                selectedKey = "folder:" + inClub(event.entry.pathLower)
            } else if key.hasPrefix(from + "/") {
                selectedKey = event.entry.pathLower + key.dropFirst(from.count)
            }
        }

        var kept: PathCounts? = counts
        self[tab].entries = entries.table(order: tab == .notes ? ClubLayout.sortedNotes : ClubLayout.sortedPhotos, counts: &kept)
        self[tab].pathCounts.counts = kept
        self[tab].version += 1
        let outcome = entries.outcome()
        self[tab].logChange(changed: outcome.changed, removed: outcome.removed)

        let newIndex: Int?, newRows: any ListRows
        if tab == .notes {
            let listing = NoteListing.make(self, format: format)
            (newIndex, newRows) = (selectedKey.flatMap(listing.items.index(ofKey:)), listing.rows)
        } else {
            let items = photoItems
            (newIndex, newRows) = (selectedKey.flatMap { key in items.firstIndex { $0.key == key } }, photoRows(items))
        }
        let newVisible = list.visibleIndices(in: newRows)
        var moved = list
        if let newIndex, let position = newVisible.firstIndex(of: newIndex) {
            moved.offset = max(0, list.offset + position - list.selected)
            moved.selected = position
        } else {
            moved.selected = max(0, min(list.selected, newVisible.count - 1))
        }
        self[tab].list = moved
        return events
    }

    /// What a page's events say once moves are told as moves (``ChangeMoves``, as `byteclub
    /// watch` tells them): a folder that went elsewhere is one `renamedFolder` event in place of
    /// the deletions and additions of what it held (an encrypted club's copies came in pages
    /// before, and were said then); a file deleted at one path and added at another, the same
    /// id in either order, is one `renamed` event.
    static func foldMoves(_ events: [LiveEvent], deletedFolders: [(folder: RemoteEntry, gone: [RemoteEntry])],
                          present: [RemoteEntry]) -> [LiveEvent] {
        var events: [LiveEvent?] = events
        for deleted in deletedFolders {
            guard let move = ChangeMoves.folderMove(from: deleted.folder, gone: deleted.gone, present: present) else { continue }
            let gone = Set(move.files.map(\.from.pathLower)), arrived = Set(move.files.map(\.to.pathLower))
            let folded = events.indices.filter { index in
                guard let event = events[index] else { return false }
                switch event.kind {
                case .deleted: return gone.contains(event.entry.pathLower)
                case .added: return arrived.contains(event.entry.pathLower)
                case .renamed: return arrived.contains(event.entry.pathLower) && gone.contains(event.previous?.pathLower ?? "")
                default: return false
                }
            }
            let event = LiveEvent(kind: .renamedFolder, entry: move.to, previous: move.from, modifiedBy: move.mover)
            // Said where the folder's first item was said: its place in the page.
            if let first = folded.first {
                events[first] = event
                for index in folded.dropFirst() { events[index] = nil }
            } else {
                events.append(event)
            }
        }
        let kept = events.compactMap { $0 }
        let deletions = kept.indices.filter { kept[$0].kind == .deleted }, additions = kept.indices.filter { kept[$0].kind == .added }
        var renamed = kept.map(Optional.some)
        for pair in ChangeMoves.pairs(gone: deletions.map { kept[$0].entry }, arrived: additions.map { kept[$0].entry }) {
            let (deletion, addition) = (deletions[pair.gone], additions[pair.arrived])
            renamed[addition] = LiveEvent(kind: .renamed, entry: kept[addition].entry, previous: kept[deletion].entry)
            renamed[deletion] = nil
        }
        return renamed.compactMap { $0 }
    }

    /// Whether `entry` is an item of `tab`'s list: a note directly in the club folder, or a
    /// photo anywhere under the photos folder.
    static func belongs(_ entry: RemoteEntry, in tab: Tab, layout: ClubLayout) -> Bool {
        switch tab {
        case .notes:
            return layout.isInNotes(entry)
        case .photos:
            return entry.kind == .file && ClubLayout.hasExtension(entry.name, in: ClubLayout.photoExtensions)
                && entry.pathLower.hasPrefix(layout.photosFolder.lowercased() + "/")
        }
    }

    /// A notes item's identity across listings: its path, or its draft's id.
    static func key(_ item: NoteItem) -> String {
        switch item {
        case .note(let entry, _): return entry.pathLower
        case .file(let entry): return "file:" + entry.pathLower
        case .draft(let draft): return "draft:" + draft.id
        case .folder(let folder): return "folder:" + folder.path.lowercased()
        }
    }
}
