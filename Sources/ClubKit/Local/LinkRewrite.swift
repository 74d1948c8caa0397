import Foundation
import Markdown
import Remote

/// Renames and moves keep links: once a note or a folder moved from `from` to `to` (a rename is
/// a move within its folder), every link that led into it, by the club's rules of resolution
/// (``NoteResolver``, over the notes as they were), leads to its new place, in every form and
/// written as it was:
/// - `[[Plan A]]`, `[[plan a|the plan]]`, `[[Plan A#Day 2]]` → `[[Plan B]]`, `[[Plan B|the plan]]`,
///   `[[Plan B#Day 2]]` when the note's title changed (an alias stays: it still names the note);
/// - `[[Old Stuff/Plan A]]`, `[[2025/Deep two]]`, `[[Old Stuff/Plan A.md]]`: as written while it
///   still names the note, else as many parts of the new path, with the extension when the link
///   had one (`[[Old Stuff/Plan B]]`), else the path from the club folder; a note embedded
///   (`![[Plan A]]`) as a link;
/// - Markdown links and pictures, `[x](Old%20Stuff/Plan%20A.md)`, `[x](<Old Stuff/Plan A.md>)`,
///   `[x](Plan%20A)`: the new path from the linking note's folder (in `<…>` when it holds a
///   space), its `#part` and title kept; a note that moved has its own relative links written
///   from its new folder.
///
/// A title link that would lead elsewhere after the move (another note of the title is now
/// nearer, or as near) is written as the path. Links in code, web addresses and links to notes
/// that did not move are left. The app's `R` (rename) and `m` (move) and folder renames all
/// rewrite through ``rewrite(_:wasAt:)``.
public struct LinkRewrite: Sendable {
    /// What moved: a note's or a folder's club path, before and after.
    public let from: String
    public let to: String
    /// The club's notes before the move, and after it.
    public let before: NoteResolver
    public let after: NoteResolver

    /// `notes`: the club's notes as they were before the move (``NoteResolver/unmoved(from:to:)``
    /// gives them from a listing taken after it).
    public init(from: String, to: String, notes: NoteResolver) {
        self.from = from
        self.to = to
        before = notes
        after = notes.moved(from: from, to: to)
    }

    /// Where the note that was at `path` is now.
    public func now(_ path: String) -> String { NoteResolver.path(afterMoving: path, from: from, to: to) }

    /// Where the note now at `path` was.
    public func was(_ path: String) -> String { NoteResolver.path(beforeMoving: path, from: from, to: to) }

    /// `text`, of the note that was at `wasAt` (and is at ``now(_:)`` of it), with its links into
    /// what moved leading to its new place, and how many links changed.
    public func rewrite(_ text: String, wasAt: String) -> (text: String, count: Int) {
        // Every link to a note or a photo is written with a "[": a text without one has none.
        guard text.utf8.contains(UInt8(ascii: "[")) else { return (text, 0) }
        let isAt = now(wasAt)
        let oldFolder = NoteResolver.parent(of: wasAt), newFolder = NoteResolver.parent(of: isAt)
        var changes: [NoteLinks.Retarget] = []
        for link in NoteLinks.scan(text) where link.line >= 0 {
            let target: String?
            switch link.syntax {
            case .wiki: target = wikiTarget(link, wasAt: wasAt, isAt: isAt)
            case .markdown: target = markdownTarget(link, oldFolder: oldFolder, newFolder: newFolder)
            case .autolink: target = nil
            }
            if let target { changes.append(NoteLinks.Retarget(link: link, target: target)) }
        }
        return NoteLinks.retargeting(text, changes)
    }

    /// A wiki link's new target, or nil when it stays as written. A note embedded (`![[Plan A]]`)
    /// is a link to it too; a picture is not (photos are not moved with notes).
    private func wikiTarget(_ link: NoteLink, wasAt: String, isAt: String) -> String? {
        let written = link.destination
        guard case .one(let old) = before.resolve(Self.target(of: written, from: wasAt), from: wasAt) else {
            // No note (an attachment, a note not made yet): by its path from the club folder.
            guard !link.isImage, written.contains("/") else { return nil }
            let path = before.root + "/" + written
            let moved = now(path)
            guard moved != path, let relative = relative(moved) else { return nil }
            return relative
        }
        let new = now(old.path)
        var candidates: [String] = []
        let byTitle = !written.contains("/") && NoteResolver.bare(written) == written
        if byTitle {
            // By its title, or an alias: the new title when the note's own title changed.
            let oldTitle = NoteResolver.bare(old.name), newTitle = NoteResolver.bare(NoteResolver.name(of: new))
            candidates.append(oldTitle != newTitle && oldTitle.lowercased() == written.lowercased() ? newTitle : written)
        } else {
            // A path, or a path's end (`2025/Deep two`) that may still name it.
            candidates.append(written)
            if let same = Self.sameForm(written, was: old.path, now: new) { candidates.append(same) }
        }
        // Else its path from the club folder, with the extension as the link had it (a wiki link
        // with one is read from the linking note's folder: without it, from the club folder).
        if let relative = relative(new) {
            if !byTitle && NoteResolver.bare(written) != written { candidates.append(relative) }
            candidates.append(NoteResolver.bare(relative))
        }
        guard let found = candidates.first(where: { leads($0, from: isAt, to: new) }) else { return nil }
        return found == written ? nil : found
    }

    /// A Markdown link's new destination path (from the linking note's new folder), or nil.
    private func markdownTarget(_ link: NoteLink, oldFolder: String, newFolder: String) -> String? {
        let path: String
        switch link.target(inFolder: oldFolder) {
        case .path(let target), .photo(let target): path = target
        case .note, .web, .elsewhere, .here: return nil
        }
        var moved = now(path)
        // `[x](Plan%20A)`, as Obsidian writes a link: the note without its extension.
        let bareFrom = NoteResolver.bare(from)
        if moved == path, bareFrom != from, path.lowercased() == bareFrom.lowercased() { moved = NoteResolver.bare(to) }
        let absolute = link.destination.hasPrefix("/")
        guard moved != path || (!absolute && oldFolder.lowercased() != newFolder.lowercased()) else { return nil }
        return absolute ? moved : NoteLinks.relativePath(from: newFolder, to: moved)
    }

    /// Whether the wiki link `written`, in the note at `note`, leads to `path` once moved.
    private func leads(_ written: String, from note: String, to path: String) -> Bool {
        guard case .one(let entry) = after.resolve(Self.target(of: written, from: note), from: note) else { return false }
        return entry.pathLower == path.lowercased()
    }

    /// `path` from the club folder, or nil outside it.
    private func relative(_ path: String) -> String? {
        let root = before.root
        guard path.lowercased().hasPrefix(root.lowercased() + "/") else { return nil }
        return String(path.dropFirst(root.count + 1))
    }

    /// Where a wiki link written `written` leads from the note at `note`, as the app reads it.
    static func target(of written: String, from note: String) -> NoteLinkTarget {
        NoteLink(destination: written, text: written, isImage: false, syntax: .wiki, line: 0, bytes: 0..<0)
            .target(inFolder: NoteResolver.parent(of: note))
    }

    /// `written` (a path's end: `2025/Deep two`, `Old Stuff/Plan A.md`) for the note now at `now`
    /// that was at `was`: as many parts of its new path, when what moved lies within them (the
    /// parts before are the same), with the extension when `written` had one; nil otherwise.
    static func sameForm(_ written: String, was: String, now: String) -> String? {
        let parts = written.split(separator: "/", omittingEmptySubsequences: false)
        let old = was.split(separator: "/"), new = now.split(separator: "/")
        let count = parts.count
        guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }), old.count >= count, new.count >= count,
              old.dropLast(count).map({ $0.lowercased() }) == new.dropLast(count).map({ $0.lowercased() }) else { return nil }
        let tail = new.suffix(count).joined(separator: "/")
        return NoteResolver.bare(written) == written ? NoteResolver.bare(tail) : tail
    }
}
