import Foundation

/// Moves told as moves, for everything that reads a change feed: the app's live lists and
/// `byteclub watch` both ask here whether a deletion and an addition are one file or folder
/// that moved, and who moved it.
///
/// A change page says a move as a deletion of the old path and an addition at the new one
/// (Dropbox's `list_folder/continue`, the club server's journal). A deletion carries only its
/// path, so what was there comes from what the reader saw before: its list, or its listing.
/// A move keeps a file's id (Dropbox's and the club server's), which pairs the two. A folder's
/// move comes as one deletion (the folder) and an addition for everything under its new path;
/// an encrypted club moves a folder a file at a time (each copied, signed for its new path),
/// then deletes the old folder, so its copies come first, in pages of their own: a folder's
/// move is found from what is there now, not from one page only.
public enum ChangeMoves {
    /// Who moved `old` to `new`, as an account id: the author of the revision at the new path
    /// when the move made one (its rev differs: the club server records a moved file's new
    /// revision for the member who moved it, and an encrypted club's copy is written anew by
    /// them). A move that kept the rev keeps the last writer's name, who need not be the mover:
    /// nil then, and the caller says it does not know rather than name the wrong member.
    public static func mover(from old: RemoteEntry, to new: RemoteEntry) -> String? {
        guard let rev = new.rev, rev != old.rev else { return nil }
        return new.modifiedBy
    }

    /// Whether `new` is `old` moved: the same id (a move keeps it). Where ids cannot say: the
    /// same content hash when one of them has no id (on a store that names both, two ids are
    /// two files, and the same bytes under another id are a copy: a folder deleted after a
    /// backup of it was made moved nowhere). A store that shows no hashes (an encrypted club
    /// hides them, and its moves are copies written anew, sealed again at another size; WebDAV
    /// has neither) cannot tell: the caller's other evidence decides (a folder's every file
    /// found again at its place in another).
    public static func isSameFile(_ old: RemoteEntry, _ new: RemoteEntry) -> Bool {
        guard old.kind == new.kind else { return false }
        if let id = old.id, id == new.id { return true }
        if let hash = old.contentHash, let other = new.contentHash { return hash == other && (old.id == nil || new.id == nil) }
        return true
    }

    /// The pairs of `gone` (entries deleted, as they were) and `arrived` (entries added) that
    /// are one entry moved within a page: the same id, or, where one of them has no id, the
    /// same content hash. Each entry is in one pair at most; the pairs come in `arrived`'s order.
    public static func pairs(gone: [RemoteEntry], arrived: [RemoteEntry]) -> [Pair] {
        var taken = Set<Int>()
        var found: [Pair] = []
        for (index, entry) in arrived.enumerated() {
            guard let match = gone.indices.first(where: { !taken.contains($0) && isMove(gone[$0], entry) }) else { continue }
            taken.insert(match)
            found.append(Pair(gone: match, arrived: index))
        }
        return found
    }

    /// A deleted entry and an added one that are the same entry moved.
    public struct Pair: Sendable, Hashable {
        /// Its index in `gone`.
        public var gone: Int
        /// Its index in `arrived`.
        public var arrived: Int

        public init(gone: Int, arrived: Int) {
            self.gone = gone
            self.arrived = arrived
        }
    }

    private static func isMove(_ old: RemoteEntry, _ new: RemoteEntry) -> Bool {
        guard old.kind == new.kind, old.pathLower != new.pathLower else { return false }
        if let id = old.id, let other = new.id { return id == other }
        guard old.kind == .file, let hash = old.contentHash, let other = new.contentHash else { return false }
        return hash == other
    }

    /// A folder that moved, as one change.
    public struct FolderMove: Sendable, Equatable {
        /// The folder as it was.
        public var from: RemoteEntry
        /// The folder as it is.
        public var to: RemoteEntry
        /// Who moved it, as an account id: the one author of every file's revision at its new
        /// path, when each was written anew there (``mover(from:to:)``); else nil.
        public var mover: String?
        /// The files it held, each as it was and as it is now.
        public var files: [Moved]

        public init(from: RemoteEntry, to: RemoteEntry, mover: String?, files: [Moved]) {
            self.from = from
            self.to = to
            self.mover = mover
            self.files = files
        }
    }

    /// One file of a folder that moved.
    public struct Moved: Sendable, Equatable {
        public var from: RemoteEntry
        public var to: RemoteEntry

        public init(from: RemoteEntry, to: RemoteEntry) {
            self.from = from
            self.to = to
        }
    }

    /// Where the deleted folder `folder` went, when it went somewhere: a folder of `present`
    /// that has its id (a server's move keeps it), or else the one folder under which each file
    /// of `gone` (the files that were under `folder`, as they were) is found again at the same
    /// place inside it, the same file (``isSameFile(_:_:)``). `present` is what the reader holds
    /// now, files and folders: the app's list once the page is applied (an encrypted club's
    /// copies came in pages before), `watch`'s additions of the page. Nil: a deletion.
    public static func folderMove(from folder: RemoteEntry, gone: [RemoteEntry], present: [RemoteEntry]) -> FolderMove? {
        let old = folder.pathLower
        let files = gone.filter { $0.kind == .file && $0.pathLower.hasPrefix(old + "/") }
        var byPath: [String: RemoteEntry] = [:]
        for entry in present where !entry.pathLower.hasPrefix(old + "/") && entry.pathLower != old {
            byPath[entry.pathLower] = entry
        }
        /// Each file of the folder at its place under `base`, or nil when one is missing there.
        func twins(under base: String) -> [Moved]? {
            var moved: [Moved] = []
            for file in files {
                guard let twin = byPath[base + file.pathLower.dropFirst(old.count)], isSameFile(file, twin) else { return nil }
                moved.append(Moved(from: file, to: twin))
            }
            return moved
        }
        var target: (entry: RemoteEntry?, base: String, files: [Moved])?
        if let id = folder.id, let same = present.first(where: { $0.kind == .folder && $0.id == id && $0.pathLower != old }) {
            // The folder itself, moved: its files are those found at their places under it.
            let moved = files.compactMap { file -> Moved? in
                guard let twin = byPath[same.pathLower + file.pathLower.dropFirst(old.count)], isSameFile(file, twin) else { return nil }
                return Moved(from: file, to: twin)
            }
            target = (same, same.pathLower, moved)
        } else if let first = files.first {
            // The first file's twins (the same file at the same place under another folder)
            // name the folders it may have gone to; the one holding every file is the one. A
            // folder above the old one is none: its files moved up out of it, it did not move.
            let inside = first.pathLower.dropFirst(old.count)
            for candidate in present where candidate.kind == .file && candidate.pathLower.hasSuffix(inside) && isSameFile(first, candidate) {
                let base = String(candidate.pathLower.dropLast(inside.count))
                guard !base.isEmpty, base != old, !old.hasPrefix(base + "/"), let moved = twins(under: base) else { continue }
                target = (present.first { $0.kind == .folder && $0.pathLower == base }, base, moved)
                break
            }
        }
        guard let target else { return nil }
        let to = target.entry ?? Self.folder(at: target.base, shownAs: target.files.first.map { moved in
            // The path as the club shows it: the twin's, less as many components as it has inside.
            let depth = moved.from.pathLower.dropFirst(old.count).split(separator: "/").count
            return moved.to.path.split(separator: "/", omittingEmptySubsequences: false).dropLast(depth).joined(separator: "/")
        })
        let movers = Set(target.files.map { Self.mover(from: $0.from, to: $0.to) })
        let oneMover = movers.count == 1 ? movers.first ?? nil : nil
        return FolderMove(from: folder, to: to, mover: oneMover, files: target.files)
    }

    /// A folder entry for a path known only from a change (a deletion says no more).
    public static func folder(at pathLower: String, shownAs path: String?) -> RemoteEntry {
        let shown = path.flatMap { $0.lowercased() == pathLower ? $0 : nil } ?? pathLower
        return RemoteEntry(kind: .folder, name: (shown as NSString).lastPathComponent, path: shown, pathLower: pathLower)
    }
}
