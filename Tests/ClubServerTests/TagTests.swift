import ClubServer
import DropboxWire
import Foundation
import XCTest

/// `files/tags/add|get|remove` over real HTTP: the spec's shapes and errors, persistence across
/// a restart, tags following a move and going with a delete, and the journal carrying a change.
final class TagTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func tags(_ paths: [String], on fixture: ServerFixture? = nil) async throws -> [String: [String]] {
        let reply = try await (fixture ?? club).rpc("2/files/tags/get", ["paths": paths])
        XCTAssertEqual(reply.status, 200, reply.text)
        let result = try JSONDecoder().decode(GetTagsResult.self, from: reply.body)
        XCTAssertEqual(result.pathsToTags.map(\.path), paths, "one answer per path, in the order asked")
        return Dictionary(result.pathsToTags.map { ($0.path, $0.texts) }, uniquingKeysWith: { a, _ in a })
    }

    func add(_ tag: String, _ path: String) async throws -> ServerFixture.Reply {
        try await club.rpc("2/files/tags/add", ["path": path, "tag_text": tag])
    }

    func testAddGetRemoveInTheSpecsShapes() async throws {
        try club.write("byteclub/Trip.txt", "boats")
        var reply = try await add("Trip", "/byteclub/trip.txt")
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.text, "null", "tags/add answers Void")
        reply = try await add("boat_2", "/byteclub/Trip.txt")
        XCTAssertEqual(reply.status, 200, reply.text)
        // Adding a tag the file has changes nothing.
        let got1 = try await add("TRIP", "/byteclub/Trip.txt").status
        XCTAssertEqual(got1, 200)

        let raw = try await club.rpc("2/files/tags/get", ["paths": ["/byteclub/Trip.txt"]])
        let object = raw.json
        let first = (object["paths_to_tags"] as? [[String: Any]])?.first
        XCTAssertEqual(first?["path"] as? String, "/byteclub/Trip.txt")
        let entries = first?["tags"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.map { $0[".tag"] as? String }, ["user_generated_tag", "user_generated_tag"])
        XCTAssertEqual(entries.map { $0["tag_text"] as? String }, ["trip", "boat_2"], "lower case, in the order added")

        reply = try await club.rpc("2/files/tags/remove", ["path": "/byteclub/Trip.txt", "tag_text": "TRIP"])
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.text, "null")
        let after = try await tags(["/byteclub/Trip.txt"])
        XCTAssertEqual(after["/byteclub/Trip.txt"], ["boat_2"])
    }

    func testErrors() async throws {
        try club.write("byteclub/a.txt", "a")
        // A tag name outside `[\w]+` or over 32 characters: 400, as the API's validation answers.
        for bad in ["two words", "dash-ed", "", String(repeating: "x", count: 33), "semi;colon", "#hash", "/lead", "trail/", "a//b", "/"] {
            let reply = try await add(bad, "/byteclub/a.txt")
            XCTAssertEqual(reply.status, 400, "\(bad): \(reply.text)")
            XCTAssertTrue(reply.text.contains("tag_text"), reply.text)
        }
        let got2 = try await add(String(repeating: "é", count: 32), "/byteclub/a.txt").status
        XCTAssertEqual(got2, 200, "letters of any script, 32 at most")
        // A nested tag (Obsidian's `project/alpha`, issue 55): word parts joined by single '/'s, kept
        // in lower case, on byteclub's own route only (issue 69): Dropbox's grammar is `[\w]+`, so
        // its route refuses one (400) and leaves it out of tags/get, which the official SDK reads.
        let onDropboxRoute = try await add("Project/Alpha", "/byteclub/a.txt")
        XCTAssertEqual(onDropboxRoute.status, 400, onDropboxRoute.text)
        XCTAssertTrue(onDropboxRoute.text.contains("/2/byteclub/files/tags/add"), onDropboxRoute.text)
        let nested = try await club.rpc("2/byteclub/files/tags/add", ["path": "/byteclub/a.txt", "tag_text": "Project/Alpha"])
        XCTAssertEqual(nested.status, 200, nested.text)
        let shown = try await tags(["/byteclub/a.txt"])["/byteclub/a.txt"] ?? []
        XCTAssertFalse(shown.contains("project/alpha"), "Dropbox's route answers Dropbox's tags only: \(shown)")
        let onClubRoute = try await club.rpc("2/byteclub/files/tags/get", ["paths": ["/byteclub/a.txt"]])
        let kept = try JSONDecoder().decode(GetTagsResult.self, from: onClubRoute.body).pathsToTags.first?.texts ?? []
        XCTAssertTrue(kept.contains("project/alpha"), "\(kept)")
        XCTAssertTrue(TagText.isUnder("project/alpha", parent: "project") && !TagText.isUnder("projects", parent: "project")
                      && !TagText.isUnder("project", parent: "project/alpha"))
        let refused = try await club.rpc("2/files/tags/remove", ["path": "/byteclub/a.txt", "tag_text": "project/alpha"]).status
        XCTAssertEqual(refused, 400)
        let removed = try await club.rpc("2/byteclub/files/tags/remove", ["path": "/byteclub/a.txt", "tag_text": "project/alpha"]).status
        XCTAssertEqual(removed, 200)
        // A missing file: BaseTagError.path, a LookupError.
        var reply = try await add("x", "/byteclub/missing.txt")
        XCTAssertEqual(reply.status, 409)
        XCTAssertEqual(reply.summary, "path/not_found")
        reply = try await club.rpc("2/files/tags/get", ["paths": ["/byteclub/a.txt", "/byteclub/missing.txt"]])
        XCTAssertEqual(reply.status, 409)
        XCTAssertEqual(reply.summary, "path/not_found")
        // Removing a tag the file lacks.
        reply = try await club.rpc("2/files/tags/remove", ["path": "/byteclub/a.txt", "tag_text": "never"])
        XCTAssertEqual(reply.status, 409)
        XCTAssertEqual(reply.summary, "tag_not_present")
        // Twenty tags at most.
        for number in 2...20 {
            let status = try await add("t\(number)", "/byteclub/a.txt").status
            XCTAssertEqual(status, 200)
        }
        reply = try await add("one_more", "/byteclub/a.txt")
        XCTAssertEqual(reply.status, 409)
        XCTAssertEqual(reply.summary, "too_many_tags")
        let got3 = try await tags(["/byteclub/a.txt"])["/byteclub/a.txt"]?.count
        XCTAssertEqual(got3, 20)
    }

    func testTagsSurviveARestartFollowAMoveAndGoWithADelete() async throws {
        try club.write("byteclub/a.txt", "a")
        try club.write("byteclub/b.txt", "b")
        let got4 = try await add("keep", "/byteclub/a.txt").status
        XCTAssertEqual(got4, 200)
        let got5 = try await add("gone", "/byteclub/b.txt").status
        XCTAssertEqual(got5, 200)
        club = try await club.restart()
        let got6 = try await tags(["/byteclub/a.txt"])["/byteclub/a.txt"]
        XCTAssertEqual(got6, ["keep"])

        var reply = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/a.txt", "to_path": "/byteclub/Renamed.txt"])
        XCTAssertEqual(reply.status, 200, reply.text)
        let got7 = try await tags(["/byteclub/Renamed.txt"])["/byteclub/Renamed.txt"]
        XCTAssertEqual(got7, ["keep"])
        // An upload over the file keeps its tags: they belong to the file, not a revision.
        let got8 = try await club.upload("/byteclub/Renamed.txt", Data("new text".utf8), mode: "overwrite").status
        XCTAssertEqual(got8, 200)
        let got9 = try await tags(["/byteclub/Renamed.txt"])["/byteclub/Renamed.txt"]
        XCTAssertEqual(got9, ["keep"])

        reply = try await club.rpc("2/files/delete_v2", ["path": "/byteclub/b.txt"])
        XCTAssertEqual(reply.status, 200, reply.text)
        // A new file where the deleted one was (it takes up the old id for its history) starts untagged.
        let got10 = try await club.upload("/byteclub/b.txt", Data("again".utf8)).status
        XCTAssertEqual(got10, 200)
        let got11 = try await tags(["/byteclub/b.txt"])["/byteclub/b.txt"]
        XCTAssertEqual(got11, [])
    }

    func testATagChangeComesBackAsAChangedEntryAndWakesALongpoll() async throws {
        // Uploaded, not written on disk: journalled at once, so nothing but the tag comes after the cursor.
        for name in ["a.txt", "b.txt"] {
            let status = try await club.upload("/byteclub/" + name, Data(name.utf8)).status
            XCTAssertEqual(status, 200)
        }
        let listed = try await club.rpc("2/files/list_folder", ["path": "/byteclub"])
        guard let cursor = listed.json["cursor"] as? String else { return XCTFail(listed.text) }
        let fixture = club!
        let poll = Task { try await fixture.rpc("2/files/list_folder/longpoll", ["cursor": cursor, "timeout": 30], token: "") }
        let got12 = try await add("news", "/byteclub/a.txt").status
        XCTAssertEqual(got12, 200)
        let woke = try await poll.value
        XCTAssertEqual(woke.json["changes"] as? Bool, true, woke.text)

        let delta = try await club.rpc("2/files/list_folder/continue", ["cursor": cursor])
        XCTAssertEqual(delta.status, 200, delta.text)
        let entries = delta.json["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.map { $0["path_display"] as? String }, ["/byteclub/a.txt"], "only the tagged file, as changed")
        XCTAssertEqual(entries.first?[".tag"] as? String, "file")
    }

    func testATagIsStoredInAFormItsOwnRuleTakes() async throws {
        try club.write("byteclub/city.txt", "trip")
        // `İ` lowers to `i` and a combining dot, which `[\w]+` refuses: stored folded, as `i`.
        let dotted = try await add("İstanbul", "/byteclub/city.txt").status
        XCTAssertEqual(dotted, 200)
        let fullWidth = try await add("ｔｒｉｐ", "/byteclub/city.txt").status
        XCTAssertEqual(fullWidth, 200)
        let stored = try await tags(["/byteclub/city.txt"])["/byteclub/city.txt"] ?? []
        XCTAssertEqual(stored, ["istanbul", "trip"])
        XCTAssertTrue(stored.allSatisfy(TagText.isNormalised), "every stored tag passes the server's own rule")
        XCTAssertEqual(stored.first?.unicodeScalars.count, 8, "no combining dot left in \(stored)")
        // Removed by any spelling that folds to it; and still there after a restart.
        club = try await club.restart()
        let restarted = try await tags(["/byteclub/city.txt"])
        XCTAssertEqual(restarted["/byteclub/city.txt"], ["istanbul", "trip"])
        let removed = try await club.rpc("2/files/tags/remove", ["path": "/byteclub/city.txt", "tag_text": "İSTANBUL"])
        XCTAssertEqual(removed.status, 200, removed.text)
        let afterRemove = try await tags(["/byteclub/city.txt"])
        XCTAssertEqual(afterRemove["/byteclub/city.txt"], ["trip"])
    }

    func testATagAnOlderServerStoredUnfoldedIsKeptFolded() async throws {
        try club.write("byteclub/city.txt", "trip")
        let plain = try await add("plain", "/byteclub/city.txt").status
        XCTAssertEqual(plain, 200)
        // What the server before this fix wrote for `İzmir`: `i` + U+0307.
        let file = club.root.appendingPathComponent(".byteclub/tags.json")
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self).replacingOccurrences(of: "\"plain\"", with: "\"plain\",\"i\\u0307zmir\"")
        try Data(text.utf8).write(to: file)
        club = try await club.restart()
        let reloaded = try await tags(["/byteclub/city.txt"])
        XCTAssertEqual(reloaded["/byteclub/city.txt"], ["plain", "izmir"], "not vanished on restart")
        let removed = try await club.rpc("2/files/tags/remove", ["path": "/byteclub/city.txt", "tag_text": "izmir"])
        XCTAssertEqual(removed.status, 200, removed.text)
    }

    func testATagOnAFIFOIsRefused() async throws {
        try club.write("byteclub/a.txt", "a")
        let fifo = club.root.appendingPathComponent("byteclub/pipe").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let reply = try await add("x", "/byteclub/pipe")
        XCTAssertEqual(reply.status, 409, reply.text)
        XCTAssertEqual(reply.summary, "path/not_found", reply.text)
        XCTAssertNil(club.read(".byteclub/tags.json"), "nothing stored for it")
    }
}
