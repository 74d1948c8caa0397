import Agent
import ByteClubConfig
import DropboxWire
import Foundation
import Remote
import SearchIndex
import TerminalUI

/// A WebDAV server's PROPFIND answer: a multistatus or a clear error, never a trap.
enum WebDAVTarget {
    static func run(_ data: Data) {
        // As the store reads it: arriving in chunks of 1 to 64 bytes (the first byte says),
        // through the screen. Where the answer in one piece parses too, they agree.
        let arriving = try? WebDAVMultistatus.parseArriving(data, chunk: Int(data.first ?? 0) % 64 + 1)
        guard let resources = try? WebDAVMultistatus.parse(data) else { return }
        if let arriving { FuzzCheck.expect(arriving == resources, "the answer parsed differently as it arrived") }
        for resource in resources {
            FuzzCheck.expect(resource.contentLength.map { $0 >= 0 } ?? true, "a negative getcontentlength was kept")
        }
        _ = WebDAVMultistatus.date(String(decoding: data, as: UTF8.self))
    }
}

/// Terminal input read in chunks of any size: the keys (and terminal replies) are the same as
/// when it arrives in one read, so a sequence split by `read(2)` is never two keys.
enum KeyDecoderTarget {
    static func run(_ data: Data) {
        guard let control = data.first else { return }
        let bytes = Array(data.dropFirst())
        let awaiting = control & 0x80 != 0
        let chunk = Int(control & 0x0F) + 1

        var whole = KeyDecoder()
        whole.awaitingReplies = awaiting
        let wholeKeys = whole.feed(bytes) + whole.flush()
        let wholeReplies = whole.takeReplies()

        var split = KeyDecoder()
        split.awaitingReplies = awaiting
        var splitKeys: [Key] = []
        var start = 0
        while start < bytes.count {
            splitKeys += split.feed(bytes[start..<min(bytes.count, start + chunk)])
            start += chunk
        }
        splitKeys += split.flush()
        FuzzCheck.expect(splitKeys == wholeKeys, "read \(chunk) bytes at a time, \(bytes) gave \(splitKeys), not \(wholeKeys)")
        FuzzCheck.expect(split.takeReplies() == wholeReplies, "read \(chunk) bytes at a time, \(bytes) gave other replies")
    }
}

/// The terminal's answers on their own: a reply's length lies within the input.
enum TerminalRepliesTarget {
    static func run(_ data: Data) {
        let bytes = Array(data)
        for (atEnd, awaiting) in [(false, false), (true, false), (true, true)] {
            if case .reply(_, let length) = TerminalReplyScanner.scanString(bytes[...], atEnd: atEnd, awaiting: awaiting) {
                FuzzCheck.expect(length > 0 && length <= bytes.count, "a reply of \(length) bytes in \(bytes.count)")
            }
        }
        if let final = bytes.last {
            _ = TerminalReplyScanner.csiReply(parameters: bytes.dropLast()[...], final: final)
        }
    }
}

/// A line on the agent's socket (a request, a reply, an event) and the agent's journal: what
/// decodes encodes to a line that decodes to the same value.
enum AgentLinesTarget {
    static func run(_ data: Data) {
        roundTrip(AgentRequest.self, data)
        roundTrip(AgentReply.self, data)
        roundTrip(AgentJournal.Contents.self, data)
    }

    private static func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ data: Data) {
        guard let value = try? AgentLines.decode(type, from: data) else { return }
        let line = AgentLines.encode(value)
        FuzzCheck.expect(line.last == 0x0A && line.dropLast().firstIndex(of: 0x0A) == nil, "an agent line with a newline inside")
        let again = try? AgentLines.decode(type, from: line.dropLast())
        FuzzCheck.expect(again == value, "\(T.self) did not survive its own line: \(String(decoding: line, as: UTF8.self))")
    }
}

/// config.toml: a config or an error naming the file (and a line inside it when there is one).
enum ConfigTarget {
    static let file = URL(fileURLWithPath: "/fuzz/config.toml")

    static func run(_ data: Data) {
        guard let text = String(data: data, encoding: .utf8) else { return }
        do {
            let config = try ClubConfig.parse(text, file: file, home: URL(fileURLWithPath: "/home/fuzz"))
            if let name = config.defaultName {
                FuzzCheck.expect(config.remotes[name] != nil, "default = \(name) names no remote, and was accepted")
            }
            for remote in config.remotes.values where remote.kind != .dropbox {
                FuzzCheck.expect(remote.url != nil, "remote \(remote.name) has no url, and was accepted")
            }
        } catch {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            FuzzCheck.expect(error.file == file, "a config error names another file")
            FuzzCheck.expect(error.line.map { (1...max(1, lines)).contains($0) } ?? true, "a config error at line \(error.line ?? 0) of \(lines)")
        }
    }
}

/// Search text as typed: a query or a clear error, and a query that parses runs on a real index
/// (FTS5 never sees the user's syntax, so it never fails on it).
enum SearchQueryTarget {
    /// One index per process, with a few notes for queries to hit.
    static let index: SearchIndex = {
        let directory = FuzzScratch.folder("byteclub-fuzz-search")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let index = try SearchIndex(directory: directory)
            try index.upsert([
                IndexedNote(path: "/byteclub/trip.txt", rev: "1", modified: nil, modifiedBy: nil, text: "Boat hire for the club trip, café at noon"),
                IndexedNote(path: "/byteclub/日本.txt", rev: "2", modified: nil, modifiedBy: nil, text: "東京で会いましょう -- NEAR \"quoted\" AND (x*)"),
            ])
            return index
        } catch {
            fatalError("search-query: cannot open an index in \(directory.path): \(error)")
        }
    }()

    static func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        guard let query = try? SearchQuery(text) else { return }
        do {
            _ = try index.search(query, limit: 10)
        } catch {
            FuzzCheck.expect(false, "the query \(text.debugDescription) parsed, then the index failed: \(error)")
        }
    }
}

/// A club server's batch download answer (``BatchDownload``): its parts or a clear error, never
/// a trap; every file part holds exactly the bytes its line promised.
enum BatchDownloadTarget {
    static func run(_ data: Data) {
        guard let parts = try? BatchDownload.parse(data) else { return }
        var bytes = 0
        for part in parts {
            if case .file(let file, let content) = part {
                FuzzCheck.expect(Int64(content.count) == file.size, "\(file.name): \(content.count) bytes where its line said \(file.size)")
                bytes += content.count
            }
        }
        FuzzCheck.expect(bytes <= data.count, "more file bytes than the answer held")
    }
}

/// A `list_folder` page read by ``ListingPageReader``: where it answers at all, it answers what
/// `JSONDecoder` answers (the same entries, cursor and `has_more`), so reading a club server's
/// pages fast never changes what a listing holds.
enum ListingPageTarget {
    static func run(_ data: Data) {
        guard let quick = ListingPageReader.read(data) else { return }
        let decoded = try? JSONDecoder().decode(ListFolderResult.self, from: data)
        FuzzCheck.expect(decoded != nil, "the quick reader read a page JSONDecoder refuses: \(String(decoding: data.prefix(300), as: UTF8.self))")
        FuzzCheck.expect(decoded == quick, "the quick reader read \(quick), JSONDecoder \(String(describing: decoded))")
    }
}
