import Foundation
import Markdown
import Remote

/// Links to attachments, and Markdown links that do not lead where they say, found as Obsidian
/// finds them (its help, "Internal links" and "Accepted file formats"): a wiki link that names a
/// file with its extension (`[[paper.pdf]]`, `![[Attachments/plan.canvas]]`) is that file
/// anywhere in the vault, the nearest first; a Markdown link, which Obsidian writes relative to
/// the note, to the vault's top or as the shortest path that is unique, is tried in that order;
/// a picture link too (`![[icon.svg]]`, `![](shot.png)`), where the path it gives has none.
extension NoteResolver {
    /// Whether `title` ends with an extension that is not a note's (`paper.pdf`, `v1.2`).
    static func hasOtherExtension(_ title: String) -> Bool {
        let ext = (title as NSString).pathExtension.lowercased()
        return !ext.isEmpty && !ClubLayout.noteExtensions.contains(ext)
    }

    /// The file other than a note that `name` names from the note at `from`: `[[paper.pdf]]` the
    /// files of that name, `[[Docs/paper.pdf]]` the one at that path from the club folder or the
    /// note's, else those whose path ends so; the nearest first.
    func resolveFile(_ name: String, from: String?) -> Answer {
        let typed = name.lowercased()
        let here = Self.parent(of: (from ?? root + "/x").lowercased())
        guard typed.contains("/") else { return nearest(of: filesByName[typed] ?? [], to: here) }
        for exact in [root.lowercased() + "/" + typed, here + "/" + typed] {
            if let hit = filesByPath[Self.normalized(exact)] { return .one(hit) }
        }
        return nearest(of: files.filter { $0.pathLower.hasSuffix("/" + typed) }, to: here)
    }

    /// The note or file a Markdown link leads to, `path` being where it says from the note at
    /// `from` (``NoteLinkTarget/path(_:)``): that note or file (a note's extension may be left
    /// off); else what it says from the club folder; else, as a wiki link of the same words
    /// would, the one whose path ends so or that is so named, the nearest first.
    public func resolvePath(_ path: String, from: String?) -> Answer {
        if let note = entry(at: path) { return .one(note) }
        if let file = filesByPath[path.lowercased()] { return .one(file) }
        let lower = path.lowercased()
        let here = Self.parent(of: (from ?? root + "/x").lowercased())
        let rootLower = root.lowercased()
        // What the link said: the path from its note's folder, or (one that climbed out of it
        // with `..`) from the club folder.
        let written: String
        if lower.hasPrefix(here + "/") {
            written = String(path.dropFirst(here.count + 1))
        } else if lower.hasPrefix(rootLower + "/") {
            written = String(path.dropFirst(rootLower.count + 1))
        } else {
            return .none
        }
        let fromRoot = root + "/" + written
        if let note = entry(at: fromRoot) { return .one(note) }
        if let file = filesByPath[fromRoot.lowercased()] { return .one(file) }
        return resolve(written, from: from)
    }

    /// The picture (or other file) a picture link leads to, `path` being where it says
    /// (``NoteLinkTarget/photo(_:)``): the file at that path; else, as a Markdown picture is
    /// found (``resolvePath(_:from:)``); else, as a wiki embed is (`![[icon.svg#icon]]`, whose
    /// path is the note's `photos/` folder, for an icon kept in `Attachments/icons/`), the file
    /// of its name anywhere, the nearest first. Both shells ask this, by the path alone.
    public func resolvePicture(at path: String, from: String?) -> Answer {
        if let file = filesByPath[path.lowercased()] { return .one(file) }
        let found = resolvePath(path, from: from)
        if found != .none { return found }
        let name = (path as NSString).lastPathComponent
        return name.isEmpty ? .none : resolveFile(name, from: from)
    }

    /// `path` with `.` and `..` steps taken (a wiki link's `../Attachments/x.pdf`).
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { if !parts.isEmpty { parts.removeLast() } } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }
}
