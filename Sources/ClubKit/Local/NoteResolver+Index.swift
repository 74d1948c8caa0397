import Foundation
import Remote
import SearchIndex

/// A resolver over the few notes that some names may name, from the club's index, in place of
/// one over a listing of every note (issue 71: `cat TITLE` costs one note, not the club).
///
/// It answers as the whole club's would for those names: what ``NoteResolver/resolve(_:from:)``
/// weighs for a name is only ever notes whose name is the name's last part (with or without
/// `.md`/`.txt`: by title, by path, by a path's end) and the notes an alias of it names; this
/// holds all of those the index has, so the nearest is the same note, and two as near are the
/// same two. The index must be current (``ClubIndexSync/catchUp(_:layout:store:)``) for that to
/// be the club's answer. Files other than notes are not in the index: a name with another
/// extension (`[[paper.pdf]]`) needs them given (`files`).
extension NoteResolver {
    /// The resolver for `names` (titles, paths in the club folder or under it, as
    /// ``resolve(_:from:)`` and ``resolvePath(_:from:)`` take them) from `index`, with `files`.
    public static func lookingUp(_ names: some Sequence<String>, root: String, in index: SearchIndex,
                                 files: [RemoteEntry] = []) throws(SearchIndexError) -> NoteResolver {
        var wanted = Set<String>(), aliasKeys = Set<String>()
        for name in names {
            let lower = name.lowercased()
            let last = Self.name(of: lower), lastBare = Self.name(of: Self.bare(lower))
            // The note at that path or named so (`Trip.md`, or `Trip.md.md`), or titled so.
            wanted.formUnion([last, last + ".md", last + ".txt", lastBare + ".md", lastBare + ".txt"])
            // An alias names a note by a title (a Markdown link's tail is one too).
            aliasKeys.formUnion([lower, Self.bare(lower), last, Self.bare(last)].filter { !$0.contains("/") && !$0.isEmpty })
        }
        var aliases: [String: [String]] = [:]
        for key in aliasKeys {
            let named = Self.aliases(of: try index.notesWithFrontMatter(naming: "aliases", mayHolding: key))
            if let paths = named[key] { aliases[key] = paths }
        }
        let aliased = Set(aliases.values.joined())
        var notes = try index.notes(named: wanted)
        let found = Set(notes.map { $0.path.lowercased() })
        notes += try index.notes(atPaths: aliased.subtracting(found))
        let entries = notes.map { RemoteEntry(kind: .file, name: $0.name, path: $0.path, rev: $0.rev, modified: $0.modified, modifiedBy: $0.modifiedBy) }
        return NoteResolver(entries: entries + files, root: root, aliases: aliases)
    }

    /// Whether resolving `name` may lead to a file other than a note (`paper.pdf`), which the
    /// index does not hold.
    public static func mayNameAFile(_ name: String) -> Bool {
        hasOtherExtension(name)
    }
}
