import Foundation
import Remote
import TerminalUI

/// What one change page did to a list, as the status bar tells it: `ray added "Trip plan"`.
public struct LiveEvent: Equatable, Sendable {
    public enum Kind: String, Sendable { case added, changed, renamed, deleted }

    public var kind: Kind
    /// The item as it is now (for a deletion, as it was).
    public var entry: RemoteEntry
    /// A renamed item's entry before the rename.
    public var previous: RemoteEntry?

    public init(kind: Kind, entry: RemoteEntry, previous: RemoteEntry? = nil) {
        self.kind = kind
        self.entry = entry
        self.previous = previous
    }

    /// Who made the change, as the server names them (an account id); nil for deletions, which
    /// the server does not attribute.
    public var modifiedBy: String? { kind == .deleted ? nil : entry.modifiedBy }

    /// What the status bar says, with `who` the author's display name (or nil): names are the
    /// server's, so they go through TerminalSafe.
    public func sentence(by who: String?, tab: Tab) -> String {
        func shown(_ entry: RemoteEntry) -> String {
            "\"" + TerminalSafe.escape(tab == .notes ? ClubLayout.title(of: entry.name) : entry.name) + "\""
        }
        let what: String
        switch kind {
        case .added: what = "added " + shown(entry)
        case .changed: what = "changed " + shown(entry)
        case .deleted: what = "deleted " + shown(entry)
        case .renamed where previous.map({ $0.name == entry.name && $0.pathLower != entry.pathLower }) ?? false:
            // The same name in another folder: a move.
            let folder = (entry.path as NSString).deletingLastPathComponent
            what = "moved " + shown(entry) + " to " + TerminalSafe.escape((folder as NSString).lastPathComponent) + "/"
        case .renamed: what = "renamed " + shown(previous ?? entry) + " to " + shown(entry)
        }
        guard let who else {
            // Deletions carry no author: "Someone deleted …" reads as well as anything we could guess.
            return "Someone " + what
        }
        return TerminalSafe.escape(who) + " " + what
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
        var entries = self[tab].entries
        // Folders change the list (a folder made, renamed or deleted by another member shows at
        // once) but are no news of their own: their notes' events say what happened.
        var folders = self[tab].folders
        var events: [LiveEvent] = []
        for change in changes {
            switch change {
            case .deleted(_, _, let pathLower):
                let inside = pathLower + "/"
                folders.removeAll { $0.pathLower == pathLower || $0.pathLower.hasPrefix(inside) }
                let gone = entries.filter { $0.pathLower == pathLower || $0.pathLower.hasPrefix(inside) }
                guard !gone.isEmpty else { continue }
                entries.removeAll { $0.pathLower == pathLower || $0.pathLower.hasPrefix(inside) }
                events += gone.map { LiveEvent(kind: .deleted, entry: $0) }
            case .updated(let entry) where entry.kind == .folder:
                if Self.belongs(entry, in: tab, layout: layout), !folders.contains(where: { $0.pathLower == entry.pathLower }) {
                    folders.append(entry)
                }
            case .updated(let entry):
                guard Self.belongs(entry, in: tab, layout: layout) else { continue }
                if let index = entries.firstIndex(where: { $0.pathLower == entry.pathLower }) {
                    let old = entries[index]
                    guard old.rev != entry.rev || old.name != entry.name || old.size != entry.size else { continue }
                    entries[index] = entry
                    events.append(LiveEvent(kind: old.name == entry.name ? .changed : .renamed, entry: entry, previous: old))
                } else {
                    entries.append(entry)
                    events.append(LiveEvent(kind: .added, entry: entry))
                }
            }
        }
        // A move is a deletion and an addition of the same file id (in either order): a rename.
        var paired = Set<Int>()
        for (index, event) in events.enumerated() where event.kind == .added {
            guard let id = event.entry.id, let deletion = events.indices.first(where: {
                events[$0].kind == .deleted && events[$0].entry.id == id && !paired.contains($0)
            }) else { continue }
            events[index] = LiveEvent(kind: .renamed, entry: event.entry, previous: events[deletion].entry)
            paired.insert(deletion)
        }
        events = events.indices.filter { !paired.contains($0) }.map { events[$0] }
        if folders != self[tab].folders {
            self[tab].folders = folders.sorted { $0.pathLower < $1.pathLower }
            if events.isEmpty { self[tab].version += 1 }
        }
        guard !events.isEmpty else { return [] }

        // Where the selection is now, by item.
        let list = self[tab].list
        let oldKeys: [String], oldRows: [ListRow]
        if tab == .notes {
            let listing = before ?? NoteListing.make(self, format: format)
            (oldKeys, oldRows) = (listing.items.map(Self.key), listing.rows)
        } else {
            (oldKeys, oldRows) = (photoItems.map(\.key), photoRows)
        }
        let oldVisible = list.visibleIndices(in: oldRows)
        var selectedKey = oldVisible.indices.contains(list.selected) ? oldKeys[oldVisible[list.selected]] : nil
        for event in events where event.kind == .renamed && selectedKey == event.previous?.pathLower {
            selectedKey = event.entry.pathLower
        }

        self[tab].entries = tab == .notes ? ClubLayout.sortedNotes(entries) : ClubLayout.sortedPhotos(entries)
        self[tab].version += 1

        let newKeys: [String], newRows: [ListRow]
        if tab == .notes {
            let listing = NoteListing.make(self, format: format)
            (newKeys, newRows) = (listing.items.map(Self.key), listing.rows)
        } else {
            (newKeys, newRows) = (photoItems.map(\.key), photoRows)
        }
        let newVisible = list.visibleIndices(in: newRows)
        var moved = list
        if let selectedKey, let position = newVisible.firstIndex(where: { newKeys[$0] == selectedKey }) {
            moved.offset = max(0, list.offset + position - list.selected)
            moved.selected = position
        } else {
            moved.selected = max(0, min(list.selected, newVisible.count - 1))
        }
        self[tab].list = moved
        return events
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
    private static func key(_ item: NoteItem) -> String {
        switch item {
        case .note(let entry, _): return entry.pathLower
        case .draft(let draft): return "draft:" + draft.id
        case .folder(let folder): return "folder:" + folder.path.lowercased()
        }
    }
}
