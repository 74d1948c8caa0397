import DropboxWire
import Foundation

extension DropboxStore: ContentSearchingStore {
    public func searchContents(_ query: String, in folder: String, limit: Int) async throws(RemoteError) -> [ContentMatch] {
        var found: [ContentMatch] = []
        // The club's own route gives each match's line (`byteclub_line`); Dropbox's gives none.
        var reply = try await clubRPC(.clubSearch, else: .search, refused: clubSearchRefused,
                                      ["query": query, "options": ["path": folder, "max_results": min(1000, max(1, limit)), "filename_only": false]],
                                      path: folder, decoding: ContentSearchReply.self)
        var paging = ListingGuard(folder: folder, limits: listingLimits)
        while true {
            try paging.page(count: reply.matches.count, next: reply.hasMore ? reply.cursor : nil)
            for match in reply.matches {
                let line = match.line
                found.append(ContentMatch(matchType: match.match.matchType?.rawValue ?? "filename", entry: try Self.entry(match.match.metadata, in: folder),
                                          lineText: line?.text, lineNumber: line?.line, column: line?.column,
                                          ranges: (line?.ranges ?? []).compactMap { $0.count == 2 && $0[0] <= $0[1] ? $0[0]..<$0[1] : nil }))
            }
            guard found.count < limit, reply.hasMore, let cursor = reply.cursor else { return Array(found.prefix(limit)) }
            reply = try await clubRPC(.clubSearchContinue, else: .searchContinue, refused: clubSearchRefused, ["cursor": cursor], path: folder,
                                      decoding: ContentSearchReply.self)
        }
    }
}

/// `search_v2`'s answer, with `byteclub_line` beside each match on the club server's own route.
private struct ContentSearchReply: Decodable, Sendable {
    struct Line: Decodable, Sendable {
        var text: String
        var line: Int
        var column: Int
        var ranges: [[Int]]
    }

    struct Match: Decodable, Sendable {
        var match: SearchMatch
        var line: Line?

        enum CodingKeys: String, CodingKey { case line = "byteclub_line" }

        init(from decoder: any Decoder) throws {
            match = try SearchMatch(from: decoder)
            line = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Line.self, forKey: .line)
        }
    }

    var matches: [Match]
    var hasMore: Bool
    var cursor: String?

    enum CodingKeys: String, CodingKey { case matches, hasMore = "has_more", cursor }
}
