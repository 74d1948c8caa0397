import ClubServer
import DropboxWire
import Foundation
import Logging
import Synchronization
import TestSupport
import XCTest

/// `search_v2` with `filename_only: false` over real HTTP: note contents, in the app's query language.
final class ContentSearchTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// (name, match_type tag, byteclub_line) of each match, on the club's own route (which gives
    /// lines) unless another is named.
    func search(_ query: String, path: String = "", filenameOnly: Bool? = false, max: Int = 100, route: String = "2/byteclub/files/search",
                file: StaticString = #filePath, line: UInt = #line) async throws -> [(String, String, [String: Any]?)] {
        var options: [String: Any] = ["path": path, "max_results": max]
        if let filenameOnly { options["filename_only"] = filenameOnly }
        let reply = try await club.rpc(route, ["query": query, "options": options])
        XCTAssertEqual(reply.status, 200, reply.text, file: file, line: line)
        return (reply.json["matches"] as? [[String: Any]] ?? []).map { match in
            let metadata = (match["metadata"] as? [String: Any])?["metadata"] as? [String: Any]
            return (metadata?["name"] as? String ?? "?", (match["match_type"] as? [String: Any])?[".tag"] as? String ?? "?",
                    match["byteclub_line"] as? [String: Any])
        }
    }

    /// Waits until a search for `query` finds `count` notes: files written on the server's disk
    /// reach the index through the journal, once the server's rescan (every second) notices them.
    func waitUntilJournalled(_ query: String, count: Int, file: StaticString = #filePath, line: UInt = #line) async throws {
        let deadline = Date().addingTimeInterval(10)
        while try await search(query, file: file, line: line).count < count {
            guard Date() < deadline else { return XCTFail("the rescan never journalled what \"\(query)\" finds", file: file, line: line) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func testContentsAreSearchedWhenFilenameOnlyIsFalse() async throws {
        try club.write("byteclub/Trip.txt", "Packing\nBoat hire on the lake\n")
        try club.write("byteclub/Café.md", "Déjà vu, 東京都に行きます")
        try club.write("byteclub/Boat list.txt", "nothing about water")
        try club.write("byteclub/photos/boat.jpg", "not a note")
        try await waitUntilJournalled("boat", count: 2)

        let boat = try await search("boat")
        XCTAssertEqual(Set(boat.map { "\($0.0) \($0.1)" }), ["Trip.txt content", "Boat list.txt filename"])
        let trip = try XCTUnwrap(boat.first { $0.0 == "Trip.txt" }?.2)
        XCTAssertEqual(trip["line"] as? Int, 2)
        XCTAssertEqual(trip["column"] as? Int, 0)
        XCTAssertEqual(trip["text"] as? String, "Boat hire on the lake")
        XCTAssertEqual(trip["ranges"] as? [[Int]], [[0, 4]])
        // Dropbox's route finds the same, in Dropbox's fields alone: no line.
        let dropbox = try await search("boat", route: "2/files/search_v2")
        XCTAssertEqual(Set(dropbox.map { "\($0.0) \($0.1)" }), ["Trip.txt content", "Boat list.txt filename"])
        XCTAssertTrue(dropbox.allSatisfy { $0.2 == nil }, "no byteclub_line on a Dropbox route")

        let r1 = try await search(#""boat hire" -lake"#)
        XCTAssertEqual(r1.map(\.0), [])
        let r2 = try await search("deja")
        XCTAssertEqual(r2.map(\.0), ["Café.md"])
        let r3 = try await search("京都")
        XCTAssertEqual(r3.map { "\($0.0) \($0.1)" }, ["Café.md content"])
        let r4 = try await search("cafe")
        XCTAssertEqual(r4.map { "\($0.0) \($0.1)" }, ["Café.md filename"])
        let r5 = try await search("boat", path: "/byteclub/photos")
        XCTAssertEqual(r5.map(\.0), [])

        // Left out (the app's photo search), filename_only keeps today's name search.
        let r6 = try await search("boat", filenameOnly: nil)
        XCTAssertEqual(Set(r6.map(\.0)), ["Boat list.txt", "boat.jpg"])
        let r7 = try await search("boat", filenameOnly: true)
        XCTAssertEqual(Set(r7.map(\.1)), ["filename"])
    }

    func testAnUploadIsFoundByTheNextSearch() async throws {
        try club.write("byteclub/Log.txt", "first words")
        try await waitUntilJournalled("first", count: 1)
        let r8 = try await search("kiwis")
        XCTAssertEqual(r8.map(\.0), [])
        let upload = try await club.upload("/byteclub/Log.txt", Data("now kiwis".utf8), mode: "overwrite")
        XCTAssertEqual(upload.status, 200, upload.text)
        let r9 = try await search("kiwis")
        XCTAssertEqual(r9.map(\.0), ["Log.txt"])
        let r10 = try await search("first")
        XCTAssertEqual(r10.map(\.0), [])
        let delete = try await club.rpc("2/files/delete_v2", ["path": "/byteclub/Log.txt"])
        XCTAssertEqual(delete.status, 200, delete.text)
        let r11 = try await search("kiwis")
        XCTAssertEqual(r11.map(\.0), [])
    }

    func testPagesAndABadQuery() async throws {
        for i in 0..<5 { try club.write("byteclub/N\(i).txt", "shared word \(i)") }
        try await waitUntilJournalled("shared", count: 5)
        let first = try await club.rpc("2/files/search_v2", ["query": "shared", "options": ["filename_only": false, "max_results": 3]])
        XCTAssertEqual((first.json["matches"] as? [[String: Any]])?.count, 3)
        XCTAssertEqual(first.json["has_more"] as? Bool, true)
        let next = try await club.rpc("2/files/search/continue_v2", ["cursor": first.json["cursor"] as? String ?? ""])
        XCTAssertEqual((next.json["matches"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual(next.json["has_more"] as? Bool, false)

        let bad = try await club.rpc("2/files/search_v2", ["query": "-shared", "options": ["filename_only": false]])
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(bad.text.contains("not only words to leave out"), bad.text)
    }

    func testTheIndexFollowsTheJournalWithoutASearchAndAcrossARestart() async throws {
        try club.write("byteclub/Trips/Lyon.md", "ferry to the island")
        try club.write("byteclub/Trips/Annecy.md", "lake walk")
        // Built by the server itself, before any search (5 s after its start): its position is on disk.
        let mark = club.root.appendingPathComponent(".byteclub/search/synced")
        let deadline = Date().addingTimeInterval(20)
        while (try? String(contentsOf: mark, encoding: .utf8))?.split(separator: " ").last.flatMap({ UInt64($0.trimmingCharacters(in: .newlines)) }) ?? 0 == 0 {
            guard Date() < deadline else { return XCTFail("the server never indexed the notes on its own") }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await waitUntilJournalled("ferry", count: 1)

        // A folder moved: its notes answer at their new paths, none at the old.
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/Trips", "to_path": "/byteclub/Done"])
        XCTAssertEqual(moved.status, 200, moved.text)
        let ferry = try await club.rpc("2/files/search_v2", ["query": "ferry", "options": ["filename_only": false]])
        let paths = (ferry.json["matches"] as? [[String: Any]] ?? []).compactMap { (($0["metadata"] as? [String: Any])?["metadata"] as? [String: Any])?["path_display"] as? String }
        XCTAssertEqual(paths, ["/byteclub/Done/Lyon.md"])

        // Changed while the server was down: the restarted server's rescan journals it, and the
        // index follows from its kept position.
        await club.stop()
        try FileManager.default.removeItem(at: club.root.appendingPathComponent("byteclub/Done/Annecy.md"))
        try club.write("byteclub/Done/Geneva.md", "lake steamer")
        club = try await club.started()
        try await waitUntilJournalled("steamer", count: 1)
        let lake = try await search("lake")
        XCTAssertEqual(lake.map(\.0), ["Geneva.md"])
        let ferryAgain = try await search("ferry")
        XCTAssertEqual(ferryAgain.map(\.0), ["Lyon.md"])
    }
}

/// The first search after a first start over a folder never indexed: answered by reading the
/// files while the index is built behind it, then by the index; and a restart after changes made
/// while the server was down catches up from the journal, not by reading the whole folder again.
final class SearchBeforeTheIndexTests: XCTestCase {
    var club: ServerFixture?

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// What the server logged, kept for the test to read.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        func count(_ text: String) -> Int { lines.withLock { $0.filter { $0.contains(text) }.count } }
    }

    struct Handler: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            lines.add("\(message)")
        }
    }

    static let scanned = "search_v2 read the files"
    static let whole = "building the content index from the whole folder"

    func names(_ reply: ServerFixture.Reply) -> [String] {
        (reply.json["matches"] as? [[String: Any]] ?? []).compactMap { (($0["metadata"] as? [String: Any])?["metadata"] as? [String: Any])?["name"] as? String }
    }

    func testTheFirstSearchIsAnsweredFromTheFilesAndTheIndexIsBuiltBehindIt() async throws {
        // The folder exists before the server first starts, as a vault copied in does.
        let lines = Lines()
        var club = try await ServerFixture(configure: { configuration in
            configuration.logger = Logger(label: "test") { _ in Handler(lines: lines) }
        }, seed: { root in
            let folder = root.appendingPathComponent("byteclub")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Deep/er"), withIntermediateDirectories: true)
            for i in 0..<600 {
                let deep = i % 3 == 0 ? "Deep/er/" : ""
                try Data("# Note \(i)\n\nharbour word\(i) keeps notes\n".utf8).write(to: folder.appendingPathComponent("\(deep)Note \(i).md"))
            }
            try Data("Boat hire on the lake, déjà vu\n".utf8).write(to: folder.appendingPathComponent("Deep/er/Trip.txt"))
            try Data("Ferry\n".utf8).write(to: folder.appendingPathComponent("Boat list.md"))
        })
        self.club = club
        let folder = club.root.appendingPathComponent("byteclub")

        // The first search, before the server's indexer has started: read from the files.
        let first = try await club.rpc("2/byteclub/files/search", ["query": "word417", "options": ["filename_only": false]])
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(names(first), ["Note 417.md"])
        XCTAssertEqual(lines.count(Self.scanned), 1, "the first search read the files")
        let line = try XCTUnwrap(((first.json["matches"] as? [[String: Any]])?.first?["byteclub_line"]) as? [String: Any])
        XCTAssertEqual(line["line"] as? Int, 3)
        XCTAssertEqual(line["ranges"] as? [[Int]], [[8, 15]])
        // The scan hashed each note it read: the hashes are written for the listings to come,
        // and a listing gives each note's hash as Dropbox's rule makes it from its bytes.
        let hashFile = club.root.appendingPathComponent(".byteclub/content-hashes")
        let hashDeadline = Date().addingTimeInterval(10)
        while ((try? String(contentsOf: hashFile, encoding: .utf8))?.split(separator: "\n").count ?? 0) < 602 {
            guard Date() < hashDeadline else { return XCTFail("the scan's 602 hashes were never written") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let listed = try await club.rpc("2/files/list_folder", ["path": "/byteclub/Deep/er", "limit": 2000])
        let listedHashes = Dictionary(uniqueKeysWithValues: (listed.json["entries"] as? [[String: Any]] ?? []).compactMap { entry in
            (entry["name"] as? String).map { ($0, entry["content_hash"] as? String) }
        })
        XCTAssertEqual(listedHashes.count, 201)
        for name in ["Trip.txt", "Note 0.md", "Note 417.md"] {
            let expected = ContentHasher.hash(try Data(contentsOf: folder.appendingPathComponent("Deep/er/\(name)")))
            XCTAssertEqual(listedHashes[name] ?? nil, expected, name)
        }
        // The index's rules hold for a scan: title and text, accents folded, an exclusion.
        let boat = try await club.rpc("2/byteclub/files/search", ["query": "boat", "options": ["filename_only": false]])
        XCTAssertEqual(Set(names(boat)), ["Trip.txt", "Boat list.md"])
        let deja = try await club.rpc("2/byteclub/files/search", ["query": "deja -ferry", "options": ["filename_only": false]])
        XCTAssertEqual(names(deja), ["Trip.txt"])
        // A word in every note: the first page at once, and the next pages follow it in order,
        // each note once, whether the index is built by then or not.
        var seen: [String] = []
        var page = try await club.rpc("2/files/search_v2", ["query": "harbour", "options": ["filename_only": false, "max_results": 250]])
        XCTAssertEqual(page.status, 200, page.text)
        seen += names(page)
        while page.json["has_more"] as? Bool == true {
            page = try await club.rpc("2/files/search/continue_v2", ["cursor": page.json["cursor"] as? String ?? ""])
            XCTAssertEqual(page.status, 200, page.text)
            seen += names(page)
        }
        XCTAssertEqual(seen.count, 600)
        XCTAssertEqual(Set(seen).count, 600, "no note twice across the pages")

        // The index is built behind the answers; once it is, searches use it.
        let mark = club.root.appendingPathComponent(".byteclub/search/synced")
        let deadline = Date().addingTimeInterval(60)
        while (try? String(contentsOf: mark, encoding: .utf8)) == nil {
            guard Date() < deadline else { throw CouldNotCheck("the content index was never built behind the first search") }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTAssertEqual(lines.count(Self.whole), 1, "the whole folder was read once")
        let scans = lines.count(Self.scanned)
        let indexed = try await club.rpc("2/byteclub/files/search", ["query": "word417", "options": ["filename_only": false]])
        XCTAssertEqual(names(indexed), ["Note 417.md"])
        XCTAssertEqual(lines.count(Self.scanned), scans, "the index answered, not the files")

        // Changed while the server was down: caught up from the journal, not a whole read.
        await club.stop()
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Note 1.md"))
        try Data("a lake steamer\n".utf8).write(to: folder.appendingPathComponent("Deep/Geneva.md"))
        try Data("# Note 2\n\nnow kiwis\n".utf8).write(to: folder.appendingPathComponent("Note 2.md"))
        club = try await club.started()
        self.club = club
        let steamer = try await club.rpc("2/byteclub/files/search", ["query": "steamer", "options": ["filename_only": false]])
        XCTAssertEqual(names(steamer), ["Geneva.md"])
        let kiwis = try await club.rpc("2/byteclub/files/search", ["query": "kiwis", "options": ["filename_only": false]])
        XCTAssertEqual(names(kiwis), ["Note 2.md"])
        let gone = try await club.rpc("2/byteclub/files/search", ["query": "word1", "options": ["filename_only": false]])
        XCTAssertEqual(names(gone), [])
        let two = try await club.rpc("2/byteclub/files/search", ["query": "word2", "options": ["filename_only": false]])
        XCTAssertEqual(names(two), [], "the old text of a note changed while down is forgotten")
        XCTAssertEqual(lines.count(Self.whole), 1, "the restart did not read the whole folder again")
        XCTAssertEqual(lines.count(Self.scanned), scans, "the restarted server answered from its index")
    }
}
