import Foundation
import Remote
import SearchIndex

/// A note named the way the app shows it: its path, or its title (the name without `.md` or
/// `.txt`), with or without the extension, in any case, in any folder.
///
/// Every command that takes a note asks here, so `cat`, `edit`, `links` and `log` of one name
/// find the same note, and the one the app's `[[link]]` of that name opens: which note a title
/// names is the core's ``NoteResolver``'s to say (nearest the club folder first, aliases from
/// front matter), never a rule of the command line's own.
public enum NoteName {
    /// What a name matched.
    public enum Match: Equatable, Sendable {
        /// The one file it names.
        case path(String)
        /// More than one note answers to the title, as near as each other: the caller names
        /// them and lets the user pick.
        case ambiguous([String])
    }

    /// The note's extensions, in the order a bare title tries them.
    public static let extensions = ["md", "txt"]

    /// The file `path` names on `store`: itself when it exists. Else, inside `clubFolder`, the
    /// note its text after the club folder names among the club's notes at any depth
    /// (``NoteResolver``: `Deep two` is `Old Stuff/2025/Deep two.md`, `2025/Deep two` too),
    /// with `aliases` (asked only then); outside it, the note of its last component's title in
    /// its folder. When nothing answers, or the store cannot be asked (offline), `path` itself,
    /// so the command's own error (or its offline answer) stands.
    ///
    /// Inside the club folder, `index` (the club's search index on this machine, when it has
    /// one) answers first: brought current through the changes since it was last (one request),
    /// it holds every note, so the notes of that name are asked of it rather than of a listing of
    /// the whole club (issue 71), and the note it gives is looked at on the server before it is
    /// the answer. An index that cannot say it is current, or a note no longer there, is left
    /// for the listing, as before.
    public static func find(_ path: String, in store: any RemoteStore, clubFolder: String,
                            index: () -> SearchIndex? = { nil },
                            aliases: () -> [String: [String]] = { [:] }) async -> Match {
        guard !path.isEmpty else { return .path(path) }
        do {
            return .path(try await store.metadata(path).path)
        } catch .notFound {
            // Looked for by title below.
        } catch {
            return .path(path)
        }
        let resolver: NoteResolver, typed: String
        if path.lowercased().hasPrefix(clubFolder.lowercased() + "/") {
            typed = String(path.dropFirst(clubFolder.count + 1))
            let kept = index()
            if let kept, let found = await fromIndex(typed, path: path, index: kept, store: store, clubFolder: clubFolder) {
                return found
            }
            let known = aliases()
            if kept == nil, known.isEmpty, let found = await atTheTop(typed, path: path, store: store) {
                return found
            }
            // The listing, taken after a cursor: an index this listing finds nearly current (the
            // app's, say) is made current and marked with it, for the next command to ask.
            let layout = ClubLayout(folder: clubFolder)
            let cursor = kept == nil || store.cursorIsAWholeListing ? nil : try? await store.latestCursor(clubFolder, recursive: true)
            guard let listing = try? await layout.fetchListing(.notes, from: store) else { return .path(path) }
            if let kept, let cursor {
                await ClubIndexSync.markIfNearlyCurrent(kept, notes: listing.entries, cursor: cursor, layout: layout, store: store)
            }
            resolver = NoteResolver(entries: listing.all.filter(Self.isNote), root: clubFolder, aliases: known)
        } else {
            let folder = (path as NSString).deletingLastPathComponent
            let root = folder == "/" ? "" : folder
            guard let entries = try? await store.list(root) else { return .path(path) }
            resolver = NoteResolver(entries: entries.filter(Self.isNote), root: root)
            typed = (path as NSString).lastPathComponent
        }
        switch resolver.resolve(typed, from: nil) {
        case .none: return .path(path)
        case .one(let entry): return .path(entry.path)
        case .several(let entries): return .ambiguous(entries.map(\.path))
        }
    }

    /// The note `typed` (a name in `clubFolder`) names, from `index` once it is current; nil
    /// when the index cannot answer for the club (not current, or the note it gives is gone).
    static func fromIndex(_ typed: String, path: String, index: SearchIndex, store: any RemoteStore, clubFolder: String) async -> Match? {
        guard await ClubIndexSync.catchUp(index, layout: ClubLayout(folder: clubFolder), store: store),
              let resolver = try? NoteResolver.lookingUp([typed], root: clubFolder, in: index) else { return nil }
        let found: [RemoteEntry]
        switch resolver.resolve(typed, from: nil) {
        // Current, the index holds every note: no note is so named.
        case .none: return .path(path)
        case .one(let entry): found = [entry]
        case .several(let entries): found = entries
        }
        // What the index gives is the server's as of a moment ago: a note gone since (or renamed
        // in another case) is looked for in the listing after all.
        var paths: [String] = []
        for entry in found {
            do {
                let now = try await store.metadata(entry.path)
                guard now.kind == .file, now.pathLower == entry.pathLower else { return nil }
                paths.append(now.path)
            } catch .notFound {
                return nil
            } catch {
                paths.append(entry.path)
            }
        }
        return paths.count == 1 ? .path(paths[0]) : .ambiguous(paths)
    }

    /// The answer a listing of the whole club gives, when a note of the name is at the top of the
    /// club folder (`typed` from there): with no aliases to weigh, nothing is nearer
    /// (``NoteResolver``), so two requests answer for the club, which a listing of 20,000 notes
    /// took 7 s to (a debug build, the server busy). A path (`Trips/Lisbon`) is that note, `.md`
    /// before `.txt`; a title is its note at the top, or both when both are there. Nil when
    /// neither is there, or the store cannot say: the listing answers. Not on a store whose names
    /// keep their case (WebDAV): `plan.md` beside `Plan.md` would make the title ambiguous there.
    static func atTheTop(_ typed: String, path: String, store: any RemoteStore) async -> Match? {
        // Typed with a note's extension, the file itself was looked for already.
        guard store.namesIgnoreCase, !typed.isEmpty,
              !extensions.contains((typed as NSString).pathExtension.lowercased()) else { return nil }
        async let md = try? await store.metadata(path + ".md")
        async let txt = try? await store.metadata(path + ".txt")
        let found = await [md, txt].compactMap { $0 }.filter { $0.kind == .file }
        guard let first = found.first else { return nil }
        if typed.contains("/") || found.count == 1 { return .path(first.path) }
        return .ambiguous(found.sorted { $0.pathLower < $1.pathLower }.map(\.path))
    }

    /// Only notes are named by title: `rm paper.pdf` never finds a file of that name elsewhere.
    static func isNote(_ entry: RemoteEntry) -> Bool {
        entry.kind == .file && extensions.contains((entry.name as NSString).pathExtension.lowercased())
    }

    /// A note's title: its name without a note extension.
    public static func title(_ name: String) -> String {
        extensions.contains((name as NSString).pathExtension.lowercased()) ? (name as NSString).deletingPathExtension : name
    }
}

extension Backend {
    /// The file `path` names in this club (``NoteName/find(_:in:clubFolder:index:aliases:)``), titles
    /// answering with the aliases this machine's search index last read, when it keeps one.
    public func findNote(_ path: String) async -> NoteName.Match {
        await NoteName.find(path, in: store, clubFolder: folder, index: { keptIndex() }, aliases: { keptAliases() })
    }

    /// This club's search index when this machine keeps one (one is never made just to find a
    /// note: without it, a name is looked for in a listing).
    public func keptIndex() -> SearchIndex? {
        let directory = Paths.cache(key)
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(SearchIndex.fileName).path) else { return nil }
        return try? SearchIndex(directory: directory)
    }

    /// Lowercased alias → the lowercased paths of the notes whose front matter gives it, as the
    /// search index on this machine last read them; none when there is no index (one is never
    /// made just for this).
    public func keptAliases() -> [String: [String]] {
        let directory = Paths.cache(key)
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(SearchIndex.fileName).path),
              let index = try? SearchIndex(directory: directory),
              let notes = try? index.notesWithFrontMatter(naming: "aliases") else { return [:] }
        return NoteResolver.aliases(of: notes)
    }
}
