import Foundation
import Remote
import Synchronization

/// The Notes tab's list by folder, made once for each change of the list and then asked: which
/// notes and files a folder holds directly, and which folders are in it with their counts. A
/// folder opened in a 100,000-note club costs what the folder holds, not a pass over every
/// entry (issue 56: folders are queries, not passes over the list).
///
/// A ``Listing`` holds one and replaces it whenever its entries, folders or files change, so an
/// index is never older than the list it answers for; it is built the first time it is asked.
final class FolderIndex: Sendable {
    /// A folder directly under another, and what it holds at any depth. Its name is the case of
    /// the first path that named it (`shownIn` at `level`), read when the folder is asked for.
    struct Child {
        var key: Substring
        var shownIn: String
        var level: Int
        var notes = 0
        var files = 0

        var name: String {
            let parts = shownIn.split(separator: "/")
            guard parts.indices.contains(level), parts[level].lowercased() == key else { return String(key) }
            return String(parts[level])
        }
    }

    struct Built {
        /// Folder (lowercased path) → positions in the entries of the notes directly in it, in
        /// the entries' order.
        var notes: [Substring: [Int]] = [:]
        /// The same for the other files.
        var files: [Substring: [Int]] = [:]
        /// Folder (lowercased path, "/" for the top) → the folders directly in it, by lowercased name.
        var children: [Substring: [Substring: Child]] = [:]
    }

    private let built = Mutex<Built?>(nil)

    /// The index of `listing`'s entries, built now if this is its first question.
    func answer<T>(_ listing: Listing, _ question: (Built) -> T) -> T {
        built.withLock { built in
            if built == nil { built = Self.build(notes: listing.entries, files: listing.files, folders: listing.folders) }
            return question(built!)
        }
    }

    static func build(notes: EntryTable, files: [RemoteEntry], folders: [RemoteEntry]) -> Built {
        var index = Built()
        // Each note's folder is found in the table's bytes, its key made once per folder; the
        // folders above it are counted once per folder, by its number of notes, not once per
        // note (a 100,000-note list is built before its first frame, issue 56).
        var keys = FolderKeys()
        var order: [(folder: Substring, first: Int)] = []
        // A run of notes in one folder (a list in a folder's order has one a folder) goes into
        // the index at its end: one lookup of the folder a run, not two a note.
        var run: (folder: Substring, positions: [Int])?
        func endRun() {
            guard let (folder, positions) = run else { return }
            if index.notes[folder] == nil { order.append((folder, positions[0])) }
            index.notes[folder, default: []].append(contentsOf: positions)
        }
        for position in notes.indices {
            let folder = keys.folder(of: notes, at: position)
            if run?.folder == folder {
                run!.positions.append(position)
            } else {
                endRun()
                run = (folder, [position])
            }
        }
        endRun()
        // Notes first, then files, then folders: a folder's name keeps the case of the first
        // path that named it, as the list always showed it (the folders in the order their
        // first notes come).
        for (folder, first) in order {
            let held = index.notes[folder]?.count ?? 0
            count(String(folder), shownIn: notes.path(at: first), isFile: false, into: &index.children) { $0.notes += held }
        }
        for (position, file) in files.enumerated() {
            index.files[parent(of: file.pathLower), default: []].append(position)
            count(file.pathLower, shownIn: file.path, isFile: true, into: &index.children) { $0.files += 1 }
        }
        for folder in folders {
            count(folder.pathLower, shownIn: folder.path, isFile: false, into: &index.children) { _ in }
        }
        return index
    }

    /// The folders of a table's entries, each key made once: an entry's folder is compared in
    /// its bytes with the keys made so far (the last one first, then by a hash of the bytes).
    private struct FolderKeys {
        private var byHash: [Int: [Substring]] = [:]
        private var last: Substring?

        mutating func folder(of table: EntryTable, at position: Int) -> Substring {
            table.withBytes(.pathLower, at: position) { bytes -> Substring in
                guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash > 0 else { return "/" }
                let folder = UnsafeRawBufferPointer(rebasing: bytes[..<slash])
                if let last, Self.equal(last, folder) { return last }
                var hasher = Hasher()
                hasher.combine(bytes: folder)
                let hash = hasher.finalize()
                if let found = byHash[hash]?.first(where: { Self.equal($0, folder) }) {
                    last = found
                    return found
                }
                let key = Substring(String(decoding: folder, as: UTF8.self))
                byHash[hash, default: []].append(key)
                last = key
                return key
            } ?? "/"
        }

        private static func equal(_ key: Substring, _ bytes: UnsafeRawBufferPointer) -> Bool {
            key.utf8.count == bytes.count && key.utf8.elementsEqual(bytes)
        }
    }

    /// The folder `pathLower` is in, as a slice of it ("/" for a path at the top).
    static func parent(of pathLower: String) -> Substring {
        guard let slash = pathLower.lastIndex(of: "/"), slash != pathLower.startIndex else { return "/" }
        return pathLower[..<slash]
    }

    /// Takes `entry` into the children of every folder above it: each folder on its path is a
    /// child of the one before, and `add` counts the entry in it (a file is not a folder itself).
    private static func count(_ lower: String, shownIn: @autoclosure () -> String, isFile: Bool,
                              into children: inout [Substring: [Substring: Child]], _ add: (inout Child) -> Void) {
        let bytes = lower.utf8
        let slashByte = UInt8(ascii: "/")
        guard bytes.first == slashByte else { return }
        // Each "/" after the first opens the next folder down: "/a/b/c.md" gives a in /, b in /a.
        var start = bytes.index(after: bytes.startIndex)
        var parentEnd = lower.startIndex
        var level = 0
        while start < bytes.endIndex {
            let slash = bytes[start...].firstIndex(of: slashByte)
            if isFile && slash == nil { break }
            let end = slash ?? bytes.endIndex
            let parent: Substring = parentEnd == lower.startIndex ? "/" : lower[..<parentEnd]
            let key = lower[start..<end]
            add(&children[parent, default: [:]][key, default: Child(key: key, shownIn: shownIn(), level: level)])
            level += 1
            parentEnd = end
            guard let slash else { break }
            start = bytes.index(after: slash)
        }
    }
}

/// The index a ``Listing`` keeps beside its entries: a cache, so two listings with the same
/// entries are equal whatever their indexes have built.
struct FolderIndexSlot: Equatable, Sendable {
    var index = FolderIndex()

    static func == (_: FolderIndexSlot, _: FolderIndexSlot) -> Bool { true }
}

extension Listing {
    /// The positions in ``entries`` of the notes directly in `folder` (lowercased), in the
    /// list's order.
    func notePositions(in folder: String) -> [Int] {
        folderIndex.index.answer(self) { $0.notes[Substring(folder)] ?? [] }
    }

    /// The notes directly in `folder` (lowercased), in the list's order: each made from the
    /// table, so for a few folders' worth, not a 100,000-note folder on every frame.
    func notes(in folder: String) -> [RemoteEntry] {
        notePositions(in: folder).map { entries[$0] }
    }

    /// The other files directly in `folder` (lowercased), in the order of ``files``.
    func files(in folder: String) -> [RemoteEntry] {
        folderIndex.index.answer(self) { $0.files[Substring(folder)] ?? [] }.map { files[$0] }
    }

    /// The folders directly in `folder`, each with its counts of notes and of other files at
    /// any depth, sorted by name; a folder named only by a note's path (the listing has not
    /// named it yet) is there too.
    func childFolders(of folder: NotesFolder) -> [FolderItem] {
        let children = folderIndex.index.answer(self) { $0.children[Substring(folder.pathLower)] ?? [:] }
        let base = folder.path == "/" ? "" : folder.path
        return children.values.map { child in
            let name = child.name
            return FolderItem(path: base + "/" + name, name: name, notes: child.notes, files: child.files)
        }
            .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }
}
