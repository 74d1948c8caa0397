import DropboxWire
import Foundation
import SearchIndex

/// `search_v2` with `options.filename_only: false`: notes (`.txt`, `.md`) found by their title
/// or their text, in the app's query language (words, `trip*`, `"boat hire"`, `-word`; case,
/// accents and CJK as the app's index treats them), best first.
///
/// Each match carries `match_type` (`filename`, `content` or `filename_and_content`, as the spec
/// names them) and, on the club's own route (`/2/byteclub/files/search`) only, `byteclub_line`:
/// the first matching line, its number (from 1), the match's column and every match range in it
/// (in characters), for `byteclub search` and the app. Dropbox's route answers Dropbox's fields
/// alone: its SDKs refuse, in strict mode, a field the spec lacks.
extension ClubAPI {
    /// The most hits one content search ranks (pages of `max_results` are cut from them).
    static let contentSearchCap = 1000

    func contentSearchPage(_ cursor: SearchCursor, lines: Bool) async throws -> Any {
        let scope = try DropboxPath.checked(cursor.path)
        let query: SearchQuery
        do { query = try SearchQuery(cursor.query) } catch { throw APIError.badRequest("search_v2: \(error.description)") }
        // One more than this page needs tells whether there is a next page; each page ranks
        // again (the index answers in milliseconds), so nothing is kept between pages.
        let ranked = min(Self.contentSearchCap, cursor.offset + cursor.limit + 1)
        // Before the index is built the files are read, stopping at `ranked` matches, unless the
        // page's order or filter needs every match.
        let complete = cursor.newestFirst == true || !cursor.extensions.isEmpty
        var found: [(FileMetadata, SearchHit)] = []
        var scanned = cursor.scanned == true
        if cursor.deleted != true {
            (found, scanned) = try await contentSearch.search(query, scope: scope, limit: ranked, complete: complete, scan: scanned, store: store)
        }
        if !cursor.extensions.isEmpty {
            let wanted = Set(cursor.extensions.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) })
            found = found.filter { file, _ in
                file.name.lastIndex(of: ".").map { wanted.contains(file.name[file.name.index(after: $0)...].lowercased()) } ?? false
            }
        }
        if cursor.newestFirst == true {
            // Stable: ties keep the ranking's order.
            found = found.enumerated().sorted { a, b in
                a.element.0.serverModified != b.element.0.serverModified ? a.element.0.serverModified > b.element.0.serverModified : a.offset < b.offset
            }.map(\.element)
        }
        let page = found.dropFirst(cursor.offset).prefix(cursor.limit)
        var next = cursor
        next.offset = cursor.offset + page.count
        next.scanned = scanned ? true : nil
        let hasMore = next.offset < found.count
        var text = "{"
        if hasMore {
            text += "\"cursor\":"
            DropboxJSON.appendQuoted(Self.encodeCursor(next), to: &text)
            text += ","
        }
        text += "\"has_more\":" + (hasMore ? "true" : "false") + ",\"matches\":["
        for (index, (file, hit)) in page.enumerated() {
            text += index > 0 ? ",{" : "{"
            if lines, let line = hit.line {
                text += "\"byteclub_line\":{\"column\":\(line.column),\"line\":\(line.number),\"ranges\":["
                text += line.ranges.map { "[\($0.lowerBound),\($0.upperBound)]" }.joined(separator: ",") + "],\"text\":"
                DropboxJSON.appendQuoted(line.text, to: &text)
                text += "},"
            }
            let tag = switch hit.match {
            case .filename: SearchMatchType.filename.rawValue
            case .content: SearchMatchType.content.rawValue
            case .both: SearchMatchType.filenameAndContent.rawValue
            }
            text += "\"match_type\":{\".tag\":\"\(tag)\"},\"metadata\":{\".tag\":\"metadata\",\"metadata\":"
            Metadata.file(file).appendJSON(to: &text)
            text += "}}"
        }
        return RawJSON(text: text + "]}")
    }
}
