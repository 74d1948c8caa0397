import Foundation
import Remote

/// The notes list's items in the folder shown: the way up, the folders and the drafts, then
/// the folder's notes, then its other files. The notes are positions in the list's
/// ``EntryTable``, each item made when asked for: a folder of 100,000 notes is not 100,000
/// entries made for every change of the list (issue 56).
public struct NoteItems: RandomAccessCollection, Sendable {
    let head: [NoteItem]
    let notes: EntryTable
    /// Positions in ``notes``, in the list's order.
    let positions: [Int]
    /// The lowercased paths of the notes that have a draft.
    let drafted: Set<String>
    let tail: [NoteItem]

    init(head: [NoteItem], notes: EntryTable, positions: [Int], drafted: Set<String>, tail: [NoteItem]) {
        self.head = head
        self.notes = notes
        self.positions = positions
        self.drafted = drafted
        self.tail = tail
    }

    /// Items that are all at hand (tests, short lists).
    public init(_ items: [NoteItem]) {
        self.init(head: items, notes: EntryTable(), positions: [], drafted: [], tail: [])
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { head.count + positions.count + tail.count }

    public subscript(index: Int) -> NoteItem {
        if index < head.count { return head[index] }
        let inNotes = index - head.count
        if inNotes < positions.count {
            let entry = notes[positions[inNotes]]
            return .note(entry, hasDraft: !drafted.isEmpty && drafted.contains(entry.pathLower))
        }
        return tail[inNotes - positions.count]
    }

    /// What keeps an item's place across changes (``AppState/key(_:)``), without making a note's entry.
    func key(at index: Int) -> String {
        let inNotes = index - head.count
        if inNotes >= 0 && inNotes < positions.count { return notes.pathLower(at: positions[inNotes]) }
        return AppState.key(self[index])
    }

    /// The index of the item whose ``key(at:)`` is `key`; a note's is found in the table's
    /// bytes (a note's key is its path, which starts with "/", as no other item's key does).
    func index(ofKey key: String) -> Int? {
        if key.hasPrefix("/"), let found = positions.firstIndex(where: { notes.field(.pathLower, at: $0, is: key) }) {
            return head.count + found
        }
        if let found = head.firstIndex(where: { AppState.key($0) == key }) { return found }
        return tail.firstIndex { AppState.key($0) == key }.map { head.count + positions.count + $0 }
    }

    /// The index of the note or other file at `pathLower`, or of the folder (not a parent's row)
    /// at it, in the list's order; the notes are compared in the table's bytes, no item made.
    func index(ofPath pathLower: String) -> Int? {
        func matches(_ item: NoteItem) -> Bool {
            switch item {
            case .note(let entry, _), .file(let entry): return entry.pathLower == pathLower
            case .folder(let folder): return !folder.isParent && folder.path.lowercased() == pathLower
            case .draft: return false
            }
        }
        if let found = head.firstIndex(where: matches) { return found }
        if let found = positions.firstIndex(where: { notes.field(.pathLower, at: $0, is: pathLower) }) { return head.count + found }
        return tail.firstIndex(where: matches).map { head.count + positions.count + $0 }
    }
}

extension NoteTags {
    /// `positions` of `table` (already newest first) with the pinned notes' moved to the front,
    /// order kept. Only the pinned paths are looked for: no note's path is made when none is pinned.
    func pinnedFirst(_ positions: [Int], of table: EntryTable) -> [Int] {
        let pinned = byPath.filter { $0.value.isPinned }.map(\.key)
        guard !pinned.isEmpty else { return positions }
        let isPinned: (Int) -> Bool
        if pinned.count <= 16 {
            isPinned = { position in pinned.contains { table.field(.pathLower, at: position, is: $0) } }
        } else {
            let set = Set(pinned)
            isPinned = { set.contains(table.pathLower(at: $0)) }
        }
        let first = positions.filter(isPinned)
        guard !first.isEmpty else { return positions }
        return first + positions.filter { !isPinned($0) }
    }
}
