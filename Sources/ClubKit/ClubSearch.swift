import Foundation
import Remote
import SearchIndex

/// `search` on every backend: a club server searches itself; Dropbox and WebDAV search the
/// club's index on this machine, the one the app keeps, brought current first.
public enum ClubSearch {
    /// The hits for `text`, at most `limit`: the server's own search where it has one (a club
    /// server, not Dropbox), else ``searchIndex(_:backend:limit:say:progress:)``.
    public static func search(_ text: String, backend: Backend, limit: Int, say: (String) -> Void,
                              progress: @escaping @Sendable (Int, Int) -> Void) async throws -> [SearchResult] {
        if let store = backend.store as? any ContentSearchingStore, backend.account == nil {
            return try await store.searchContents(text, in: "", limit: limit).map(SearchResult.init)
        }
        return try await searchIndex(text, backend: backend, limit: limit, say: say, progress: progress)
    }

    /// Dropbox and WebDAV: the app's index, brought current when the server answers.
    public static func searchIndex(_ text: String, backend: Backend, limit: Int, say: (String) -> Void,
                                   progress: @escaping @Sendable (Int, Int) -> Void) async throws -> [SearchResult] {
        let index = try backend.searchIndex()
        do {
            // The changes since the index was last current, when it knows when that was; else a listing.
            if await !ClubIndexSync.catchUp(index, layout: ClubLayout(folder: backend.folder), store: backend.store) {
                try await bringCurrent(index, backend: backend, say: say, progress: progress)
            }
        } catch let error as RemoteError {
            guard error.isUnreachable else { throw error }
            let count = (try? index.count()) ?? 0
            say("offline (\(error.message)): searching the \(count) note\(count == 1 ? "" : "s") indexed before")
        }
        let hits: [SearchHit]
        do { hits = try index.search(text, limit: limit) } catch { throw RemoteError.local(error.description) }
        return hits.map(SearchResult.init)
    }

    /// Lists the club's notes, in every folder as the app lists them, and fetches those whose
    /// revision the index does not have: ``ClubIndexSync``, the app's own rule, so the app and
    /// the command line keep one index per club without undoing each other's rows. Returns the
    /// notes listed (what `links` resolves against).
    @discardableResult
    public static func bringCurrent(_ index: SearchIndex, backend: Backend, say: (String) -> Void,
                                    progress: @escaping @Sendable (Int, Int) -> Void) async throws -> [RemoteEntry] {
        // Marked with the change cursor taken before the listing, so the next command that
        // names one note catches up from there instead of listing (ClubIndexSync+Changes.swift).
        let (entries, report) = try await ClubIndexSync.bringCurrentMarking(index, layout: ClubLayout(folder: backend.folder),
                                                                             store: backend.store, progress: progress)
        if !report.failed.isEmpty {
            say("\(report.failed.count) note\(report.failed.count == 1 ? "" : "s") could not be fetched; searched as they were indexed")
        }
        return Array(entries)
    }
}

/// One hit of a search, from the server's search or the club's index, as `search --json` prints
/// it (and as the line printer reads it).
public struct SearchResult: Encodable, Sendable {
    public struct Line: Encodable, Sendable {
        /// From 1.
        public var number: Int
        /// The first match, in characters from the line's start (from 0).
        public var column: Int
        public var text: String
        /// Every match as [start, end) in characters.
        public var ranges: [[Int]]
    }

    public var path: String
    public var name: String
    public var modified: Date?
    /// The member's name (filled in once names are asked; the id until then).
    public var modifiedBy: String?
    public var modifiedById: String?
    /// "content", "filename" or "both".
    public var match: String
    public var line: Line?

    enum CodingKeys: String, CodingKey { case path = "pathDisplay", name, modified, modifiedBy, modifiedById, match, line }

    public func encode(to encoder: any Encoder) throws {
        var object = encoder.container(keyedBy: CodingKeys.self)
        try object.encode(path, forKey: .path)
        try object.encode(name, forKey: .name)
        try object.encode(modified, forKey: .modified)
        try object.encode(modifiedBy, forKey: .modifiedBy)
        try object.encode(modifiedById, forKey: .modifiedById)
        try object.encode(match, forKey: .match)
        try object.encode(line, forKey: .line)
    }

    public init(_ match: ContentMatch) {
        path = match.entry.path
        name = match.entry.name
        modified = match.entry.modified
        modifiedBy = match.entry.modifiedBy
        modifiedById = match.entry.modifiedBy
        self.match = match.matchType == "filename_and_content" ? "both" : match.matchType
        if let text = match.lineText, let number = match.lineNumber {
            line = Line(number: number, column: match.column ?? 0, text: text, ranges: match.ranges.map { [$0.lowerBound, $0.upperBound] })
        }
    }

    public init(_ hit: SearchHit) {
        path = hit.path
        name = hit.name
        modified = hit.modified
        modifiedBy = hit.modifiedBy
        modifiedById = hit.modifiedBy
        match = hit.match.rawValue
        line = hit.line.map { Line(number: $0.number, column: $0.column, text: $0.text, ranges: $0.ranges.map { [$0.lowerBound, $0.upperBound] }) }
    }
}
