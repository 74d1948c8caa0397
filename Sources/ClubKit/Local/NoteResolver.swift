import Foundation
import Markdown
import Remote

/// Which note a title, a path or a link names: one set of rules for the app (following a link,
/// drawing a missing one) and the command line (`cat`, `edit`, `links`, `rm`, `mv` … of a title),
/// as Obsidian finds a note. `[[Note]]` (or `byteclub edit Note`) is the note of that title or
/// alias in any folder, the nearest to the linking note first (from the club folder when nothing
/// links); `[[Folder/Note]]` is the note at that path under the club folder (or the linking
/// note's), else the one whose path ends so. A title may carry its `.md`/`.txt`. Two notes as
/// near as each other are both answers: the user chooses, nothing is guessed.
///
/// Attachments too, as Obsidian finds them (NoteResolver+Files.swift): `[[paper.pdf]]` is the
/// file of that name in any folder, the nearest first; a Markdown link `[x](Notes/Trip.md)` is
/// the file at that path from the linking note's folder, else from the club folder, else the one
/// whose path ends so, as a wiki link would find it.
///
/// Renames and moves keep links through it too (LinkRewrite.swift): a link is rewritten
/// when it led, by these rules, into what moved.
public struct NoteResolver: Sendable {
    /// The notes resolved among: the files with a note extension of what it was given.
    public let entries: [RemoteEntry]
    /// The other files it was given (attachments: PDFs, pictures, canvases…), which a link with
    /// their extension names (``resolve(_:from:)``).
    public let files: [RemoteEntry]
    /// The club folder ("/byteclub").
    public let root: String
    /// Lowercased alias → the paths (lowercased) of the notes whose front matter gives it
    /// (``aliases(of:)``).
    public let aliases: [String: [String]]
    /// Lowercased path → note.
    private let byPath: [String: RemoteEntry]
    /// Lowercased title → the notes of that title, in the order given.
    private let byTitle: [String: [RemoteEntry]]
    /// Lowercased name → the other files of that name, in the order given.
    let filesByName: [String: [RemoteEntry]]
    /// Lowercased path → other file.
    let filesByPath: [String: RemoteEntry]

    public enum Answer: Equatable, Sendable {
        case none
        case one(RemoteEntry)
        /// As near as each other, by path.
        case several([RemoteEntry])
    }

    /// `entries`: a listing of the club's files at any depth (folders are left out; files other
    /// than notes are ``files``); `root`: the club folder.
    public init(entries: some Collection<RemoteEntry>, root: String, aliases: [String: [String]] = [:]) {
        let notes = entries.filter { $0.kind == .file && ClubLayout.hasExtension($0.name, in: ClubLayout.noteExtensions) }
        let others = entries.filter { $0.kind == .file && !ClubLayout.hasExtension($0.name, in: ClubLayout.noteExtensions) }
        self.entries = notes
        files = others
        var filesByName: [String: [RemoteEntry]] = [:], filesByPath: [String: RemoteEntry] = [:]
        for file in others {
            filesByName[file.name.lowercased(), default: []].append(file)
            if filesByPath[file.pathLower] == nil { filesByPath[file.pathLower] = file }
        }
        self.filesByName = filesByName
        self.filesByPath = filesByPath
        self.root = root
        self.aliases = aliases
        var byPath: [String: RemoteEntry] = [:], byTitle: [String: [RemoteEntry]] = [:]
        byPath.reserveCapacity(notes.count)
        for note in notes {
            if byPath[note.pathLower] == nil { byPath[note.pathLower] = note }
            byTitle[Self.bare(note.name.lowercased()), default: []].append(note)
        }
        self.byPath = byPath
        self.byTitle = byTitle
    }

    /// The note(s) `title` names, from the note at `from` (nil: from the club folder).
    public func resolve(_ title: String, from: String?) -> Answer {
        // `[[paper.pdf]]`: the file of that name; `[[v1.2]]`, when no file is so named, a note.
        if Self.hasOtherExtension(title) {
            let file = resolveFile(title, from: from)
            if file != .none { return file }
        }
        let typed = title.lowercased()
        let wanted = Self.bare(typed)
        // Typed with its extension ("Trip plan.md"): that file before another of the title.
        let name = typed != wanted ? Self.name(of: typed) : nil
        let here = Self.parent(of: (from ?? root + "/x").lowercased())
        var candidates: [RemoteEntry]
        if typed.contains("/") {
            let rootLower = root.lowercased()
            let exact = [rootLower + "/" + typed, here + "/" + typed].flatMap { [$0, $0 + ".md", $0 + ".txt"] }
            if let hit = exact.lazy.compactMap({ self.byPath[$0] }).first { return .one(hit) }
            candidates = entries.filter { Self.bare($0.pathLower).hasSuffix("/" + wanted) }
        } else {
            candidates = byTitle[wanted] ?? []
            var seen = Set(candidates.map(\.pathLower))
            var named = aliases[typed] ?? []
            if typed != wanted { named += aliases[wanted] ?? [] }
            for path in named {
                if let note = byPath[path], seen.insert(path).inserted { candidates.append(note) }
            }
        }
        if let name {
            let named = candidates.filter { $0.name.lowercased() == name }
            if !named.isEmpty { candidates = named }
        }
        return nearest(of: candidates, to: here)
    }

    /// The one of `candidates` nearest the folder `here`, or those as near as each other.
    func nearest(of candidates: [RemoteEntry], to here: String) -> Answer {
        guard !candidates.isEmpty else { return .none }
        guard candidates.count > 1 else { return .one(candidates[0]) }
        let ranked = candidates.map { (entry: $0, distance: Self.distance(here, Self.parent(of: $0.pathLower))) }
        let nearest = ranked.map(\.distance).min() ?? 0
        let best = ranked.filter { $0.distance == nearest }.map(\.entry).sorted { $0.pathLower < $1.pathLower }
        return best.count == 1 ? .one(best[0]) : .several(best)
    }

    /// Where a link leads, from the note at `from`: a title as ``resolve(_:from:)``; a path (a
    /// Markdown link, `[[Folder/Note.md]]`) the note or file there, with `.md`/`.txt` added when
    /// the link left it off, else as Obsidian finds it (``resolvePath(_:from:)``). Photos, web
    /// addresses and the rest are no note.
    public func resolve(_ target: NoteLinkTarget, from: String?) -> Answer {
        switch target {
        case .note(let title): return resolve(title, from: from)
        case .path(let path): return resolvePath(path, from: from)
        case .photo, .web, .elsewhere, .here: return .none
        }
    }

    /// The note `title` names from the note at `from`: the first of several as near.
    public func note(titled title: String, from: String?) -> RemoteEntry? {
        switch resolve(title, from: from) {
        case .one(let entry): return entry
        case .several(let entries): return entries.first
        case .none: return nil
        }
    }

    /// The note at `path` (any case), or with `.md`/`.txt` added when it was left off.
    public func entry(at path: String) -> RemoteEntry? {
        let lower = path.lowercased()
        return byPath[lower] ?? byPath[lower + ".md"] ?? byPath[lower + ".txt"]
    }

    /// The same notes once `from` (a note's or a folder's path) moved to `to`.
    public func moved(from: String, to: String) -> NoteResolver {
        let notes = (entries + files).map { Self.entry($0, at: Self.path(afterMoving: $0.path, from: from, to: to)) }
        let named = aliases.mapValues { $0.map { Self.path(afterMoving: $0, from: from, to: to).lowercased() } }
        return NoteResolver(entries: notes, root: root, aliases: named)
    }

    /// The same notes as they were before `from` moved to `to`, from a listing taken before the
    /// move or after it.
    public func unmoved(from: String, to: String) -> NoteResolver {
        let notes = (entries + files).map { Self.entry($0, at: Self.path(beforeMoving: $0.path, from: from, to: to)) }
        let named = aliases.mapValues { $0.map { Self.path(beforeMoving: $0, from: from, to: to).lowercased() } }
        return NoteResolver(entries: notes, root: root, aliases: named)
    }

    // MARK: Aliases

    /// Lowercased alias → the lowercased paths of the notes whose front matter gives it
    /// (`aliases:`), from the notes' texts (a search index's `notesWithFrontMatter(naming:)`).
    public static func aliases(of notes: [(path: String, text: String)]) -> [String: [String]] {
        var aliases: [String: [String]] = [:]
        for (path, text) in notes {
            for alias in NoteFrontMatter(text)?.aliases ?? [] where !alias.isEmpty {
                aliases[alias.lowercased(), default: []].append(path.lowercased())
            }
        }
        return aliases
    }

    // MARK: Paths

    /// Where the note at `path` is once `from` moved to `to` (any case).
    public static func path(afterMoving path: String, from: String, to: String) -> String {
        let lower = path.lowercased(), fromLower = from.lowercased()
        if lower == fromLower { return to }
        if lower.hasPrefix(fromLower + "/") { return to + path.dropFirst(from.count) }
        return path
    }

    /// Where the note now at `path` was before `from` moved to `to`.
    public static func path(beforeMoving path: String, from: String, to: String) -> String {
        let lower = path.lowercased(), toLower = to.lowercased()
        if lower == toLower { return from }
        if lower.hasPrefix(toLower + "/") { return from + path.dropFirst(to.count) }
        return path
    }

    /// A path without its note extension.
    public static func bare(_ path: String) -> String {
        let lower = path.lowercased()
        for ext in [".md", ".txt"] where lower.hasSuffix(ext) {
            let kept = path.dropLast(ext.count)
            if !kept.isEmpty && !kept.hasSuffix("/") { return String(kept) }
        }
        return path
    }

    /// The folder `path` is in: "/byteclub/Trips/Day.md" → "/byteclub/Trips"; "/x" → "/".
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The last part of `path`.
    static func name(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Steps from folder `a` to folder `b`: up to their common folder, then down.
    public static func distance(_ a: String, _ b: String) -> Int {
        let x = a.split(separator: "/"), y = b.split(separator: "/")
        var common = 0
        while common < min(x.count, y.count) && x[common] == y[common] { common += 1 }
        return (x.count - common) + (y.count - common)
    }

    /// `entry` at `path` (its name following).
    static func entry(_ entry: RemoteEntry, at path: String) -> RemoteEntry {
        guard path != entry.path else { return entry }
        var moved = entry
        moved.path = path
        moved.pathLower = path.lowercased()
        moved.name = name(of: path)
        return moved
    }
}
