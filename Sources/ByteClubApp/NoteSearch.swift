import Foundation
import Remote
import SearchIndex

/// One note found by a search, as the results screen shows it and the editor opens it.
public struct SearchResult: Equatable, Sendable {
    /// The note's path as displayed ("/byteclub/Trip plan.txt").
    public var path: String
    /// The note's file name ("Trip plan.txt").
    public var name: String
    public var modified: Date?
    /// Who changed it last, as the server names them (an account id), or nil.
    public var modifiedBy: String?
    /// The first line that matched (the title when only the title did), unescaped.
    public var line: String
    /// Which line of the body ``line`` is, from 0; nil when only the title matched.
    public var lineNumber: Int?
    /// Where the matches are in ``line``, in `Character` offsets (what the editor's cursor counts).
    public var ranges: [Range<Int>]

    public init(path: String, name: String, modified: Date?, modifiedBy: String?, line: String, lineNumber: Int?, ranges: [Range<Int>]) {
        self.path = path
        self.name = name
        self.modified = modified
        self.modifiedBy = modifiedBy
        self.line = line
        self.lineNumber = lineNumber
        self.ranges = ranges
    }

    /// The texts the query matched in ``line`` ("Boat", "ボート"): what `n`/`N` look for in the
    /// opened note, so the editor's matches are the index's, whatever the query's operators.
    public var matchedTexts: [String] {
        let characters = Array(line)
        var seen = Set<String>(), texts: [String] = []
        for range in ranges where range.lowerBound >= 0 && range.upperBound <= characters.count && !range.isEmpty {
            let text = String(characters[range])
            if seen.insert(text.lowercased()).inserted { texts.append(text) }
        }
        return texts
    }
}

/// The full-text index of the club's notes, as the app uses it (SearchIndex+App.swift wraps the
/// SearchIndex library in it; tests may hand the app another).
///
/// Every method may be called from any thread but the UI queue's work never waits on one: the
/// app calls them through ``UIEffects/perform(_:then:)``. Reads never wait for writes.
public protocol NoteSearchIndex: AnyObject, Sendable {
    /// The notes matching `query` (words, `trip*`, `"boat hire"`, `-word`), best first.
    /// - Throws: ``RemoteError/local(_:)`` with a message for the status bar (a bad query).
    /// `folder` (a club path), when given, keeps the notes at any depth under it.
    func search(_ query: String, limit: Int, under folder: String?) throws(RemoteError) -> [SearchResult]
    /// Indexes `text` as the note `entry` (its rev is kept, so a sync skips it).
    func upsert(_ entry: RemoteEntry, text: String) throws(RemoteError)
    /// Forgets the note at `path` (case-insensitive).
    func remove(path: String) throws(RemoteError)
    /// Brings the index current against `entries` (every note of the club): notes whose rev
    /// changed are fetched by path (a few at a time) and indexed, notes not listed are
    /// forgotten. `fetchBatch`, when the store reads in batches, fetches most of them many at a
    /// time. `progress(done, total)` counts the notes to fetch.
    func sync(_ entries: EntryTable, fetch: @escaping @Sendable (String) async throws(RemoteError) -> String,
              fetchBatch: IndexSync.FetchBatch?,
              progress: @escaping @Sendable (Int, Int) -> Void) async throws(RemoteError) -> IndexSyncOutcome
    /// Takes in what change pages did to the notes list since the last sync: `changed` notes
    /// fetched where the index lacks their rev, `removed` (lowercased paths) forgotten. No look
    /// at the rest of the index: a live change costs what changed.
    func apply(changed: [RemoteEntry], removed: [String], fetch: @escaping @Sendable (String) async throws(RemoteError) -> String,
               fetchBatch: IndexSync.FetchBatch?,
               progress: @escaping @Sendable (Int, Int) -> Void) async throws(RemoteError) -> IndexSyncOutcome
    /// Why the index was started afresh when it was opened (damaged, or from another version), or nil.
    var rebuiltBecause: String? { get }
    /// The text and rev indexed for the note at `path`, or nil: what a search hit opens from
    /// while the server cannot be reached and the note was never opened (so is not in the cache).
    func indexedCopy(of path: String) -> (text: String, rev: String?)?
    /// The notes whose links lead to the note at `path` in the club folder `root` (as a link is
    /// followed: by its title, its path or an alias, the nearest note of a name), newest first.
    func backlinks(to path: String, root: String, limit: Int) throws(RemoteError) -> [LinkingNote]
    /// The notes whose text holds any of `needles` (nil: the index cannot say, read them all).
    func paths(containing needles: [String]) -> [String]?
    /// Lowercased alias → the lowercased paths of the notes whose front matter gives it.
    func aliases() -> [String: [String]]
    /// Whether another process (`byteclub search`, `links`: one index per club, shared) wrote
    /// to the index since this was last asked; then the app brings it current again against
    /// its own notes list rather than trust its last sync. Waits for a write in progress here.
    func changedElsewhere() -> Bool
}

extension NoteSearchIndex {
    /// An index that keeps no texts has no copy to open.
    public func indexedCopy(of path: String) -> (text: String, rev: String?)? { nil }
    /// An index that keeps no links knows of none.
    public func backlinks(to path: String, root: String, limit: Int) throws(RemoteError) -> [LinkingNote] { [] }
    public func paths(containing needles: [String]) -> [String]? { nil }
    public func aliases() -> [String: [String]] { [:] }
    /// An index no other process opens never changes under the app.
    public func changedElsewhere() -> Bool { false }
}

/// What a sync of the index did.
public struct IndexSyncOutcome: Equatable, Sendable {
    /// Notes fetched and indexed.
    public var indexed: Int
    /// Notes whose text could not be fetched (offline): kept as they were, tried again later.
    public var failed: Int
    /// Notes forgotten (deleted, or renamed away).
    public var removed: Int
    /// The index was found damaged on the way and was filled again from scratch.
    public var rebuilt: Bool

    public init(indexed: Int, failed: Int, removed: Int, rebuilt: Bool = false) {
        self.indexed = indexed
        self.failed = failed
        self.removed = removed
        self.rebuilt = rebuilt
    }
}

extension NoteSearchIndex {
    /// The notes matching `query` in the whole club.
    func search(_ query: String, limit: Int) throws(RemoteError) -> [SearchResult] {
        try search(query, limit: limit, under: nil)
    }
}
