import DropboxWire
import Foundation

/// What a watch of a folder has seen, and each change page as the lines `byteclub watch`
/// prints: `added`, `changed`, `deleted`, and a move as one `renamed` line (``ChangeMoves``),
/// a folder's move as one line for the folder. A value with no I/O.
public struct SeenEntries: Sendable {
    /// Every entry seen, by lower-case path.
    private var known: [String: RemoteEntry] = [:]

    public init() {}

    /// One printed change.
    public struct Line: Equatable, Sendable {
        public enum Change: String, Sendable { case added, changed, deleted, renamed }
        public var change: Change
        /// The path as the club shows it (a rename's new path).
        public var path: String
        /// The entry as it is (nil for a deletion, which knows only its path).
        public var entry: RemoteEntry?
        /// A rename's path before it.
        public var from: String?
        /// Who did it, as an account id, when the server says: the author of an addition or
        /// a change, the mover of a rename (``ChangeMoves/mover(from:to:)``); never a deletion's.
        public var by: String?

        public init(change: Change, path: String, entry: RemoteEntry?, from: String? = nil, by: String? = nil) {
            self.change = change
            self.path = path
            self.entry = entry
            self.from = from
            self.by = by
        }

        public var isFolder: Bool { entry?.kind == .folder }

        /// `added /byteclub/a.txt`, `renamed /byteclub/a.txt -> /byteclub/b.txt`, with control
        /// characters escaped (paths are the server's); folders end in `/`.
        public var text: String {
            let slash = isFolder ? "/" : ""
            let shown = TerminalSafe.escape(path + slash)
            guard let from else { return change.rawValue + " " + shown }
            return change.rawValue + " " + TerminalSafe.escape(from + slash) + " -> " + shown
        }
    }

    /// A change page from the server, as lines: each change that is news, with a move (a
    /// deletion and an addition of one entry) said once, as `renamed`, where its deletion was.
    public mutating func apply(page changes: [RemoteChange]) -> [Line] {
        var lines: [Line?] = []
        /// Each deletion that was news: its line, and what it took (as it was).
        var deletions: [(line: Int, pathLower: String, taken: [RemoteEntry])] = []
        var arrivals: [Int] = []
        for change in changes {
            let taken: [RemoteEntry]
            if case .deleted(_, _, let pathLower) = change {
                taken = known.filter { $0.key == pathLower || $0.key.hasPrefix(pathLower + "/") }.map(\.value)
            } else {
                taken = []
            }
            guard let line = apply(change) else { continue }
            if line.change == .deleted { deletions.append((lines.count, change.pathLower, taken)) }
            if line.change == .added { arrivals.append(lines.count) }
            lines.append(line)
        }
        guard !deletions.isEmpty, !arrivals.isEmpty else { return lines.compactMap { $0 } }
        let arrived = arrivals.compactMap { lines[$0]?.entry }
        var folded = Set<Int>()
        // A folder's move: one line for the folder, in place of its deletion and its additions.
        for deletion in deletions {
            let inside = deletion.taken.filter { $0.pathLower != deletion.pathLower }
            let itself = deletion.taken.first { $0.pathLower == deletion.pathLower }
            guard !inside.isEmpty || itself?.kind == .folder, let line = lines[deletion.line] else { continue }
            let folder = itself ?? ChangeMoves.folder(at: deletion.pathLower, shownAs: line.path)
            guard folder.kind == .folder, let move = ChangeMoves.folderMove(from: folder, gone: inside, present: arrived) else { continue }
            lines[deletion.line] = Line(change: .renamed, path: move.to.path, entry: move.to, from: folder.path, by: move.mover)
            folded.insert(deletion.line)
            // What was inside arrives under the new path: said by the folder's line.
            let places = Set(inside.map { $0.pathLower.dropFirst(deletion.pathLower.count) })
            for index in arrivals {
                guard let entry = lines[index]?.entry else { continue }
                let path = entry.pathLower
                if path == move.to.pathLower || (path.hasPrefix(move.to.pathLower + "/") && places.contains(path.dropFirst(move.to.pathLower.count))) {
                    lines[index] = nil
                }
            }
        }
        // A file's move: the same file deleted at one path and added at another.
        let single = deletions.filter { !folded.contains($0.line) && $0.taken.count == 1 && $0.taken[0].pathLower == $0.pathLower }
        let unpaired = arrivals.filter { lines[$0] != nil }
        let pairs = ChangeMoves.pairs(gone: single.map { $0.taken[0] }, arrived: unpaired.compactMap { lines[$0]?.entry })
        for pair in pairs {
            let old = single[pair.gone].taken[0], index = unpaired[pair.arrived]
            guard let new = lines[index]?.entry else { continue }
            lines[single[pair.gone].line] = Line(change: .renamed, path: new.path, entry: new, from: old.path, by: ChangeMoves.mover(from: old, to: new))
            lines[index] = nil
        }
        return lines.compactMap { $0 }
    }

    /// A change from the server, as a line, or nil when it is no news (a rev already seen, a
    /// folder already there, a deletion of something never seen).
    public mutating func apply(_ change: RemoteChange) -> Line? {
        switch change {
        case .updated(let entry):
            let before = known[entry.pathLower]
            known[entry.pathLower] = entry
            guard let before else { return Line(change: .added, path: entry.path, entry: entry, by: entry.modifiedBy) }
            if entry.kind == .folder || before.rev == entry.rev { return nil }
            return Line(change: .changed, path: entry.path, entry: entry, by: entry.modifiedBy)
        case .deleted(_, let path, let pathLower):
            // A deleted folder takes everything under it along, and is news if anything seen
            // was under it: the watched folder itself is never listed, but its deletion must
            // not pass in silence.
            let prefix = pathLower + "/"
            let under = known.keys.filter { $0.hasPrefix(prefix) }
            for key in under { known[key] = nil }
            guard known.removeValue(forKey: pathLower) != nil || !under.isEmpty else { return nil }
            return Line(change: .deleted, path: path, entry: nil)
        }
    }

    /// Takes a fresh listing as the whole truth, and answers how it differs from what was seen.
    public mutating func replace(with entries: [RemoteEntry]) -> [Line] {
        var lines: [Line] = []
        var fresh: [String: RemoteEntry] = [:]
        for entry in entries.sorted(by: { $0.pathLower < $1.pathLower }) {
            fresh[entry.pathLower] = entry
            if let before = known[entry.pathLower] {
                if entry.kind == .file && before.rev != entry.rev { lines.append(Line(change: .changed, path: entry.path, entry: entry, by: entry.modifiedBy)) }
            } else {
                lines.append(Line(change: .added, path: entry.path, entry: entry, by: entry.modifiedBy))
            }
        }
        for key in known.keys.sorted() where fresh[key] == nil {
            lines.append(Line(change: .deleted, path: known[key]?.path ?? key, entry: nil))
        }
        known = fresh
        return lines
    }
}
