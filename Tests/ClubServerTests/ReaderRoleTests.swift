@testable import ClubServer
import DropboxWire
import Foundation
import Remote
import Transfer
import XCTest

/// Roles over real HTTP against the real server: a reader reads and searches and is refused
/// every write before anything reaches the disk; a change of role or a removal counts at once,
/// ending the member's longpoll; too many wrong tokens shut an address out.
final class ReaderRoleTests: XCTestCase {
    private var club: ServerFixture!
    private var tokens: [String: String] = [:]

    override func setUp() async throws {
        var made: [String: String] = [:]
        club = try await ServerFixture { configuration in
            configuration.keepsMembers = true
            configuration.memberPollInterval = .milliseconds(50)
            let registry = MemberRegistry(root: configuration.root)
            for (name, role) in [("rita", MemberRole.reader), ("ed", .editor)] {
                guard let invite = try? registry.invite(name, role: role, hours: 1, server: URL(string: "http://h:1")!, pin: nil, actor: "test"),
                      let (token, _) = try? registry.redeem(secret: invite.secret) else { continue }
                made[name] = token
            }
        }
        tokens = made
        XCTAssertEqual(tokens.count, 2)
    }

    override func tearDown() async throws {
        await club.tearDown()
    }

    private func upload(_ path: String, _ text: String, as name: String) async throws -> ServerFixture.Reply {
        try await club.post("2/files/upload", body: Data(text.utf8), headers: [
            "Dropbox-API-Arg": #"{"path":"\#(path)","mode":"overwrite"}"#, "Content-Type": "application/octet-stream",
        ], token: tokens[name])
    }

    private func rpc(_ endpoint: String, _ argument: Any, as name: String) async throws -> ServerFixture.Reply {
        try await club.rpc(endpoint, argument, token: tokens[name])
    }

    /// `users/get_current_account` with `token` (its body is `null`, which JSONSerialization cannot write).
    private func account(token: String?) async throws -> ServerFixture.Reply {
        try await club.post("2/users/get_current_account", body: Data("null".utf8), headers: ["Content-Type": "application/json"], token: token)
    }

    /// Every file under the club folder with its bytes, the server's own state left out.
    private func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let root = club.root.resolvingSymlinksInPath()
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return files }
        for case let url as URL in walk {
            let relative = String(url.resolvingSymlinksInPath().path.dropFirst(root.path.count))
            guard !relative.hasPrefix("/.byteclub") else { continue }
            files[relative] = FileManager.default.contents(atPath: url.path) ?? Data()
        }
        return files
    }

    func testAReaderReadsAndSearchesButEveryWriteIsRefusedAndNothingLands() async throws {
        let made = try await upload("/byteclub/plan.md", "the plan\n", as: "ed")
        XCTAssertEqual(made.status, 200, made.text)
        XCTAssertEqual((made.json["sharing_info"] as? [String: Any])?["read_only"] as? Bool, false, "an editor may write")

        let listing = try await rpc("2/files/list_folder", ["path": "/byteclub"], as: "rita")
        XCTAssertEqual(listing.status, 200, listing.text)
        let entry = (listing.json["entries"] as? [[String: Any]])?.first { $0["name"] as? String == "plan.md" }
        XCTAssertEqual((entry?["sharing_info"] as? [String: Any])?["read_only"] as? Bool, true, listing.text)
        let download = try await club.post("2/files/download", body: nil, headers: ["Dropbox-API-Arg": #"{"path":"/byteclub/plan.md"}"#], token: tokens["rita"])
        XCTAssertEqual(download.text, "the plan\n")
        // A batch download reads too, and its metadata says read-only as the listing's does.
        let batch = try await club.post(Endpoint.downloadBatch.relativePath, body: BatchDownload.requestBody(paths: ["/byteclub/plan.md"]),
                                        headers: ["Content-Type": "application/json"], token: tokens["rita"])
        guard case .file(let batched, let batchedBytes)? = try BatchDownload.parse(batch.body).first else { return XCTFail(batch.text) }
        XCTAssertEqual(batchedBytes, Data("the plan\n".utf8))
        XCTAssertEqual(batched.sharingInfo?.readOnly, true, batch.text)
        let search = try await rpc("2/files/search_v2", ["query": "plan"], as: "rita")
        XCTAssertEqual((search.json["matches"] as? [Any])?.count, 1, search.text)

        let before = try snapshot()
        let refusals: [(String, ServerFixture.Reply)] = [
            ("path/no_write_permission", try await upload("/byteclub/plan.md", "overwritten\n", as: "rita")),
            ("path/no_write_permission", try await upload("/byteclub/new.md", "new\n", as: "rita")),
            ("path_write/no_write_permission", try await rpc("2/files/delete_v2", ["path": "/byteclub/plan.md"], as: "rita")),
            ("to/no_write_permission", try await rpc("2/files/move_v2", ["from_path": "/byteclub/plan.md", "to_path": "/byteclub/x.md"], as: "rita")),
            ("to/no_write_permission", try await rpc("2/files/copy_v2", ["from_path": "/byteclub/plan.md", "to_path": "/byteclub/y.md"], as: "rita")),
            ("path/no_write_permission", try await rpc("2/files/create_folder_v2", ["path": "/byteclub/sub"], as: "rita")),
            ("path/no_write_permission", try await rpc("2/files/tags/add", ["path": "/byteclub/plan.md", "tag_text": "x"], as: "rita")),
            ("no_write_permission", try await club.post("2/files/upload_session/start", body: Data(repeating: 1, count: 1000), headers: [
                "Dropbox-API-Arg": #"{"close":false}"#, "Content-Type": "application/octet-stream"], token: tokens["rita"])),
            ("shared_link_access_denied", try await rpc("2/sharing/create_shared_link_with_settings", ["path": "/byteclub/plan.md"], as: "rita")),
        ]
        for (summary, reply) in refusals {
            XCTAssertEqual(reply.status, 409, reply.text)
            XCTAssertTrue(reply.summary.hasPrefix(summary), "\(summary): \(reply.text)")
        }
        XCTAssertEqual(try snapshot(), before, "a reader's writes left the folder as it was")
        XCTAssertTrue(FileManager.default.contents(atPath: club.root.appendingPathComponent(".byteclub/members.json").path) != nil)
    }

    /// Issue 43: the listing cache was shared by every caller with the first caller's role baked
    /// in, so a reader listing a folder just after an editor was told `read_only: false`, and an
    /// editor after a reader `true`. Each listing says what its caller may do.
    /// Issue 69: a reader may write its own request to join an encrypted club
    /// (`FOLDER/.clubkeys/requests/NAME.json`, small), so an admin can admit it, and nothing else
    /// of the club's keys: not the keys, not the roster, not deeper, not a dot segment, not big,
    /// and not into a club that is not encrypted (its folder would then look encrypted).
    func testAReaderMayWriteItsRequestToJoinAnEncryptedClubAndNothingElseOfItsKeys() async throws {
        let request = #"{"name":"rita","recipient":"age1example"}"#
        let plain = try await upload("/byteclub/.clubkeys/requests/0123456789abcdef.json", request, as: "rita")
        XCTAssertEqual(plain.status, 409, "a plain club: \(plain.text)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.root.appendingPathComponent("byteclub/.clubkeys").path))
        // The club made encrypted (its marker, as `init --encrypted` writes it).
        let keys = club.root.appendingPathComponent("byteclub/.clubkeys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        try Data(#"{"encrypted":true}"#.utf8).write(to: keys.appendingPathComponent("club.json"))
        let asked = try await upload("/byteclub/.clubkeys/requests/0123456789abcdef.json", request, as: "rita")
        XCTAssertEqual(asked.status, 200, asked.text)
        XCTAssertEqual(try snapshot()["/byteclub/.clubkeys/requests/0123456789abcdef.json"], Data(request.utf8))
        let before = try snapshot()
        for path in ["/byteclub/.clubkeys/keys/0123456789abcdef.age", "/byteclub/.clubkeys/roster.age",
                     "/byteclub/.clubkeys/club.json", "/byteclub/.clubkeys/requests/sub/0123456789abcdef.json",
                     "/byteclub/.clubkeys/requests/.json", "/byteclub/.clubkeys/requests/0123456789abcdef.txt",
                     "/byteclub/.clubkeys/requests/../roster.json", "/byteclub/requests/0123456789abcdef.json",
                     "/byteclub/notes/.clubkeys/../plan.json"] {
            let refused = try await upload(path, request, as: "rita")
            XCTAssertEqual(refused.status, 409, "\(path): \(refused.text)")
            XCTAssertTrue(refused.text.contains("rita is a reader in this club"), "\(path): \(refused.text)")
        }
        let big = try await upload("/byteclub/.clubkeys/requests/fedcba9876543210.json", String(repeating: "x", count: 20_000), as: "rita")
        XCTAssertEqual(big.status, 409, big.text)
        XCTAssertEqual(try snapshot(), before, "nothing a reader was refused reached the disk")
    }

    func testAListingSaysWhatItsCallerMayDoWhoeverListedFirst() async throws {
        let made = try await upload("/byteclub/cached.md", "cached\n", as: "ed")
        XCTAssertEqual(made.status, 200, made.text)
        func readOnly(as name: String) async throws -> Bool? {
            let listing = try await rpc("2/files/list_folder", ["path": "/byteclub"], as: name)
            XCTAssertEqual(listing.status, 200, listing.text)
            let entry = (listing.json["entries"] as? [[String: Any]])?.first { $0["name"] as? String == "cached.md" }
            return (entry?["sharing_info"] as? [String: Any])?["read_only"] as? Bool
        }
        let editorFirst = try await readOnly(as: "ed")
        let readerAfter = try await readOnly(as: "rita")
        let editorAgain = try await readOnly(as: "ed")
        XCTAssertEqual(editorFirst, false)
        XCTAssertEqual(readerAfter, true, "the reader's listing, just after the editor's")
        XCTAssertEqual(editorAgain, false, "the editor's, just after the reader's")
    }

    /// Issue 43: `users/get_account` read only the `--member` flags, so every member added with
    /// `members add` (an invite) was `no_account`, and clients showed `dbid:…` for them. Now
    /// every member the server knows is named, in `get_account_batch` too, and a removed
    /// member's past changes still carry the name they had.
    func testInvitedMembersAreNamedAndARemovedOneKeepsTheName() async throws {
        let written = try await upload("/byteclub/by-ed.md", "ed's\n", as: "ed")
        XCTAssertEqual(written.status, 200, written.text)
        let author = try XCTUnwrap((written.json["sharing_info"] as? [String: Any])?["modified_by"] as? String)
        XCTAssertEqual(author, ClubMember.accountID(of: "ed"))
        func name(of id: String) async throws -> String? {
            let reply = try await rpc("2/users/get_account", ["account_id": id], as: "rita")
            return (reply.json["name"] as? [String: Any])?["display_name"] as? String
        }
        let edName = try await name(of: author)
        XCTAssertEqual(edName, "ed")
        let batch = try await rpc("2/users/get_account_batch", ["account_ids": [author, ClubMember.accountID(of: "rita")]], as: "ed")
        XCTAssertEqual(batch.status, 200, batch.text)
        let names = (batch.jsonArray ?? []).compactMap { ($0["name"] as? [String: Any])?["display_name"] as? String }
        XCTAssertEqual(names, ["ed", "rita"])
        let stranger = try await rpc("2/users/get_account", ["account_id": ClubMember.accountID(of: "mallory")], as: "ed")
        XCTAssertEqual(stranger.status, 409, stranger.text)
        XCTAssertEqual(stranger.summary, "no_account")

        try MemberRegistry(root: club.root.path).remove("ed", actor: "test")
        let after = try await name(of: author)
        XCTAssertEqual(after, "ed", "a removed member's changes still show the name they had")
    }

    func testARoleChangeAndARemovalCountAtOnceAndEndTheLongpoll() async throws {
        let first = try await upload("/byteclub/a.md", "a\n", as: "ed")
        XCTAssertEqual(first.status, 200, first.text)
        let registry = MemberRegistry(root: club.root.path)
        try registry.setRole("ed", .reader, actor: "test")
        let refused = try await upload("/byteclub/a.md", "b\n", as: "ed")
        XCTAssertEqual(refused.status, 409, "the next write after the change is refused: \(refused.text)")

        // Rita's longpoll, carrying her token, is cut when she is removed.
        let cursor = try await rpc("2/files/list_folder/get_latest_cursor", ["path": "/byteclub"], as: "rita").json["cursor"] as? String
        let server = club.server
        let longpoll = Task { [club, tokens] in
            try await club!.rpc("2/files/list_folder/longpoll", ["cursor": cursor ?? "", "timeout": 480], token: tokens["rita"])
        }
        let waiting = Date().addingTimeInterval(10)
        while server.waitingLongpolls == 0 && Date() < waiting { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertEqual(server.waitingLongpolls, 1)
        let removed = ContinuousClock.now
        try registry.remove("rita", actor: "test")
        let outcome = await longpoll.result
        XCTAssertLessThan(ContinuousClock.now - removed, .seconds(1), "the longpoll ended within a second of the removal")
        if case .success(let reply) = outcome {
            XCTAssertNotEqual(reply.status, 200, "the longpoll did not answer as if nothing happened: \(reply.text)")
        }
        let after = try await account(token: tokens["rita"])
        XCTAssertEqual(after.status, 401)
    }

    func testTooManyWrongTokensShutTheAddressOut() async throws {
        for attempt in 0..<10 {
            let reply = try await account(token: "guess-\(attempt)")
            XCTAssertEqual(reply.status, 401)
        }
        let eleventh = try await account(token: "guess-10")
        XCTAssertEqual(eleventh.status, 401)
        let shut = try await account(token: tokens["ed"])
        XCTAssertEqual(shut.status, 429, "shut out for now, whatever it sends: \(shut.text)")
        XCTAssertNotNil(shut.json["error"])
    }
}
