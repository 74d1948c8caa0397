import Foundation
import Remote

/// Which folder the Notes list shows: the club folder at the top, or a folder at any depth
/// under it. Paths are the club's, as displayed ("/byteclub/Trips/2026"); comparisons are
/// case-insensitive, as the server's are.
public struct NotesFolder: Equatable, Sendable {
    /// The club folder, above every other.
    public var root: String
    /// The folder shown, ``root`` at the top.
    public var path: String

    public init(root: String = "/byteclub") {
        self.root = root
        path = root
    }

    public var isRoot: Bool { pathLower == root.lowercased() }
    public var pathLower: String { path.lowercased() }
    /// The folder under the club folder ("Trips/2026"), empty at the top.
    public var relative: String { isRoot ? "" : String(path.dropFirst(root.count + 1)) }
    /// The folder above this one (the top stays the top).
    public var parent: String { isRoot ? root : Self.parent(of: path) }

    /// Whether the file or folder at `pathLower` is directly in this folder.
    public func holds(_ pathLower: String) -> Bool { Self.parent(of: pathLower) == self.pathLower }

    /// The folder `path` is in: "/byteclub/a/b.md" → "/byteclub/a".
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The last part of `path`: "/byteclub/Trips" → "Trips".
    public static func name(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// A folder's row in the Notes list: a folder under the one shown (with how many notes it holds
/// at any depth), or the row that goes up (`..`).
public struct FolderItem: Equatable, Sendable {
    public var path: String
    public var name: String
    public var notes: Int
    /// The other files it holds at any depth (attachments).
    public var files: Int
    public var isParent: Bool
    /// What marks a folder's row, and the row that goes up.
    static let mark = "▸"
    static let upMark = "◂"

    public init(path: String, name: String, notes: Int, files: Int = 0, isParent: Bool = false) {
        self.path = path
        self.name = name
        self.notes = notes
        self.files = files
        self.isParent = isParent
    }

    /// The folders directly in `folder`, from the notes, other files and folders at any depth
    /// under it: each with its counts of notes and of other files at any depth, sorted by name. A folder named only by a note's path
    /// (the listing has not named it yet) is there too.
    static func children(of folder: NotesFolder, notes: [RemoteEntry], folders: [RemoteEntry], files: [RemoteEntry] = []) -> [FolderItem] {
        let prefix = folder.pathLower == "/" ? "/" : folder.pathLower + "/"
        let depth = folder.path.split(separator: "/").count
        // Substrings of the entries' own paths as keys: no string is made per note.
        var counts: [Substring: Int] = [:], fileCounts: [Substring: Int] = [:], names: [Substring: String] = [:]
        func see(_ entry: RemoteEntry, isFile: Bool, counted: inout [Substring: Int]) {
            guard entry.pathLower.hasPrefix(prefix) else { return }
            let rest = entry.pathLower.dropFirst(prefix.count)
            let slash = rest.firstIndex(of: "/")
            if isFile && slash == nil { return }
            let key = slash.map { rest[..<$0] } ?? rest
            if names[key] == nil {
                let parts = entry.path.split(separator: "/")
                names[key] = parts.indices.contains(depth) ? String(parts[depth]) : String(key)
            }
            counted[key, default: 0] += isFile ? 1 : 0
        }
        for note in notes { see(note, isFile: true, counted: &counts) }
        for file in files { see(file, isFile: true, counted: &fileCounts) }
        for entry in folders { see(entry, isFile: false, counted: &counts) }
        let base = folder.path == "/" ? "" : folder.path
        return names.map { key, name in FolderItem(path: base + "/" + name, name: name, notes: counts[key] ?? 0, files: fileCounts[key] ?? 0) }
            .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }
}

extension AppState {
    /// Shows `path`'s notes in the Notes list; the selection goes to its first row.
    public mutating func openFolder(_ path: String) {
        notesFolder.path = path
        notes.list.filter = ""
        notes.list.isEditingFilter = false
        notes.list.selected = 0
        notes.list.offset = 0
    }

    /// Shows the folder above; the selection goes to the folder just left.
    public mutating func upFolder() {
        guard !notesFolder.isRoot else { return }
        let left = notesFolder.pathLower
        openFolder(notesFolder.parent)
        // The folders come first in the list (after the way up): the row is found among them
        // alone, without making the whole list twice.
        let children = FolderItem.children(of: notesFolder, notes: notes.entries, folders: notes.folders, files: notes.files)
        guard let index = children.firstIndex(where: { $0.path.lowercased() == left }) else { return }
        notes.list.selected = (notesFolder.isRoot ? 0 : 1) + index
    }
}
