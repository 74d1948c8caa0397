import Foundation

/// One note found by a server's content search, with its first matching line when the server
/// says it (a club server's `byteclub_line`; Dropbox gives none).
public struct ContentMatch: Sendable, Hashable {
    /// `search_v2`'s `match_type`: "filename", "content" or "filename_and_content".
    public var matchType: String
    public var entry: RemoteEntry
    /// The matching line's text, its number (from 1), the first match's column and every match,
    /// in `Character`s.
    public var lineText: String?
    public var lineNumber: Int?
    public var column: Int?
    public var ranges: [Range<Int>]

    public init(matchType: String, entry: RemoteEntry, lineText: String? = nil, lineNumber: Int? = nil, column: Int? = nil, ranges: [Range<Int>] = []) {
        self.matchType = matchType
        self.entry = entry
        self.lineText = lineText
        self.lineNumber = lineNumber
        self.column = column
        self.ranges = ranges
    }
}

/// A store whose server searches the notes' contents itself (`search_v2` with
/// `filename_only: false`), so a search needs no local index.
public protocol ContentSearchingStore: RemoteStore {
    /// Files under `folder` whose names or contents match `query`, best first, at most `limit`.
    /// A query the server refuses throws `.server(400, message)`.
    func searchContents(_ query: String, in folder: String, limit: Int) async throws(RemoteError) -> [ContentMatch]
}
