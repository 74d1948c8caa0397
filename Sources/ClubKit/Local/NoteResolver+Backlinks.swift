import Foundation
import Markdown
import Remote
import SearchIndex

/// Backlinks by the one resolver that follows links (issue 69): a note's backlinks are the links
/// that lead to it when followed, not every link that names its title. `[[Plan]]` in
/// `Trips/Day.md` leads to `Trips/Plan.md` when one is there, so it is no backlink of another
/// `Plan.md`; `[[Captain]]` leads to the note whose front matter gives that alias, so it is one
/// of that note's.
extension SearchIndex {
    /// The notes whose links lead to the note at `path` (in the club folder `root`), newest
    /// first, one per note with its first such link's line and context and how many lead here.
    ///
    /// The candidates are the links stored under the note's keys (its title, its path, a path's
    /// end) and under its aliases; each is resolved from the note that holds it, over the notes
    /// its name may name (``NoteResolver/lookingUp(_:root:in:files:)``), and kept when it leads
    /// here. Of notes as near as each other, the first by path is where a link leads, as when it
    /// is followed. A photo or another file, which the index does not list, keeps every link
    /// that names it.
    public func resolvedBacklinks(to path: String, root: String, limit: Int = 1000) throws(SearchIndexError) -> [Backlink] {
        guard ClubLayout.hasExtension(path, in: ClubLayout.noteExtensions) else { return try backlinks(to: path, limit: limit) }
        let target = path.lowercased()
        let aliases = (try note(at: path)).flatMap { NoteFrontMatter($0.text)?.aliases } ?? []
        var keys = Self.targetKeys(of: path)
        for alias in aliases where !alias.isEmpty { keys.append("t:" + alias.lowercased()) }
        let rows = try links(under: Array(Set(keys))).filter { $0.path.lowercased() != target }
        let names = Set(rows.map { String($0.target.dropFirst(2)) })
        let resolver = try NoteResolver.lookingUp(names, root: root, in: self)
        func leadsHere(_ row: LinkRow) -> Bool {
            let name = String(row.target.dropFirst(2))
            let answer = row.target.hasPrefix("t:") ? resolver.resolve(name, from: row.path) : resolver.resolve(.path(name), from: row.path)
            switch answer {
            case .none: return false
            case .one(let entry): return entry.pathLower == target
            case .several(let entries): return entries.first?.pathLower == target
            }
        }
        var byNote: [String: (row: LinkRow, count: Int)] = [:]
        for row in rows where leadsHere(row) {
            let key = row.path.lowercased()
            if let seen = byNote[key] {
                byNote[key] = (row.line < seen.row.line ? row : seen.row, seen.count + 1)
            } else {
                byNote[key] = (row, 1)
            }
        }
        let sorted = byNote.values.sorted { a, b in
            let (x, y) = (a.row.modified ?? .distantPast, b.row.modified ?? .distantPast)
            return x != y ? x > y : a.row.path.lowercased() < b.row.path.lowercased()
        }
        return sorted.prefix(max(1, limit)).map { found in
            Backlink(path: found.row.path, name: found.row.name, modified: found.row.modified, modifiedBy: found.row.modifiedBy,
                     line: found.row.line, context: found.row.context, count: found.count)
        }
    }
}
