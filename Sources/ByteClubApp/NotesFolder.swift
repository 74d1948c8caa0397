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
        let children = notes.childFolders(of: notesFolder)
        guard let index = children.firstIndex(where: { $0.path.lowercased() == left }) else { return }
        notes.list.selected = (notesFolder.isRoot ? 0 : 1) + index
    }
}
