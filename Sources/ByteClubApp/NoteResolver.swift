import Foundation
import Markdown
import Remote

/// Which note a wiki link by title names, as Obsidian finds it: `[[Note]]` is the note of that
/// title (or alias) in any folder, the nearest to the linking note first; `[[Folder/Note]]` is
/// the note at that path under the club folder, else the one whose path ends so. Two notes as
/// near as each other are both answers: the user chooses, nothing is guessed.
struct NoteResolver {
    let entries: [RemoteEntry]
    /// The club folder ("/byteclub").
    let root: String
    /// Lowercased alias → the paths (lowercased) of the notes whose front matter gives it.
    var aliases: [String: [String]] = [:]

    enum Answer: Equatable {
        case none
        case one(RemoteEntry)
        /// As near as each other, nearest first by path.
        case several([RemoteEntry])
    }

    /// The note(s) `title` names, from the note at `from` (nil: from the club folder).
    func resolve(_ title: String, from: String?) -> Answer {
        let wanted = title.lowercased()
        let here = NotesFolder.parent(of: (from ?? root + "/x").lowercased())
        var candidates: [RemoteEntry]
        if wanted.contains("/") {
            let rootLower = root.lowercased()
            let exact = [rootLower + "/" + wanted, here + "/" + wanted].flatMap { [$0, $0 + ".md", $0 + ".txt"] }
            if let hit = exact.lazy.compactMap({ path in entries.first { $0.pathLower == path } }).first { return .one(hit) }
            candidates = entries.filter { Self.bare($0.pathLower).hasSuffix("/" + wanted) }
        } else {
            let named = Set(aliases[wanted] ?? [])
            candidates = entries.filter { NoteLinks.title(ofPath: $0.name).lowercased() == wanted || named.contains($0.pathLower) }
        }
        guard !candidates.isEmpty else { return .none }
        guard candidates.count > 1 else { return .one(candidates[0]) }
        let ranked = candidates.map { (entry: $0, distance: Self.distance(here, NotesFolder.parent(of: $0.pathLower))) }
        let nearest = ranked.map(\.distance).min() ?? 0
        let best = ranked.filter { $0.distance == nearest }.map(\.entry).sorted { $0.pathLower < $1.pathLower }
        return best.count == 1 ? .one(best[0]) : .several(best)
    }

    /// A path without its note extension.
    static func bare(_ path: String) -> String {
        let ext = (path as NSString).pathExtension.lowercased()
        return ext == "md" || ext == "txt" ? (path as NSString).deletingPathExtension : path
    }

    /// Steps from folder `a` to folder `b`: up to their common folder, then down.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = a.split(separator: "/"), y = b.split(separator: "/")
        var common = 0
        while common < min(x.count, y.count) && x[common] == y[common] { common += 1 }
        return (x.count - common) + (y.count - common)
    }
}
