import ClubServer
import DropboxWire
import Foundation
import TestSupport
import XCTest

/// Members over real HTTP: tokens of their own, `get_current_account`, and who made each
/// revision (`sharing_info.modified_by`).
final class MemberTests: XCTestCase {
    var club: ServerFixture!
    let alice = ClubMember(name: "Alice Liddell", token: "alice-\(UUID().uuidString)")
    let bob = ClubMember(name: "bob", token: "bob-\(UUID().uuidString)")

    override func setUp() async throws {
        let members = [alice, bob]
        club = try await ServerFixture { $0.members = members }
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func account(token: String, body: String = "null") async throws -> Account {
        let reply = try await club.post("2/users/get_current_account", body: Data(body.utf8), headers: ["Content-Type": "application/json"], token: token)
        XCTAssertEqual(reply.status, 200, reply.text)
        return try JSONDecoder().decode(Account.self, from: reply.body)
    }

    func testEachMemberSeesThemselves() async throws {
        let a = try await account(token: alice.token)
        let b = try await account(token: bob.token, body: "")
        XCTAssertEqual(a.name.displayName, "Alice Liddell")
        XCTAssertEqual(a.name.givenName, "Alice")
        XCTAssertEqual(a.name.surname, "Liddell")
        XCTAssertEqual(a.name.abbreviatedName, "AL")
        XCTAssertEqual(a.email, "alice.liddell@club.local")
        XCTAssertEqual(b.name.displayName, "bob")
        XCTAssertEqual(b.email, "bob@club.local")
        XCTAssertTrue(a.accountID.hasPrefix("dbid:"))
        XCTAssertNotEqual(a.accountID, b.accountID)
        XCTAssertEqual(a.accountID, ClubMember.accountID(of: "Alice Liddell"))
        // The shared token still works, for the member "club".
        let shared = try await account(token: club.token)
        XCTAssertEqual(shared.name.displayName, ClubMember.sharedName)

        let wrong = try await club.post("2/users/get_current_account", body: Data("null".utf8), token: alice.token + "x")
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(wrong.summary, "invalid_access_token")
        let badBody = try await club.post("2/users/get_current_account", body: Data(#"{"x":1}"#.utf8), token: bob.token)
        XCTAssertEqual(badBody.status, 400, badBody.text)
    }

    func testRevisionsSayWhoMadeThem() async throws {
        func upload(_ text: String, as member: ClubMember) async throws -> ServerFixture.Reply {
            let argument = DropboxJSON.asciiEscaped(#"{"path":"/who.txt","mode":"overwrite"}"#)
            return try await club.post("2/files/upload", body: Data(text.utf8), headers: ["Dropbox-API-Arg": argument, "Content-Type": "application/octet-stream"],
                                       token: member.token)
        }
        let first = try await upload("from alice", as: alice)
        XCTAssertEqual(first.status, 200, first.text)
        let written = try JSONDecoder().decode(Metadata.self, from: first.body)
        guard case .file(let aliceFile) = written else { return XCTFail(first.text) }
        XCTAssertEqual(aliceFile.sharingInfo?.modifiedBy, ClubMember.accountID(of: alice.name))
        XCTAssertEqual(aliceFile.sharingInfo?.readOnly, false)
        XCTAssertEqual(aliceFile.sharingInfo?.parentSharedFolderID.isEmpty, false)
        _ = try await upload("from bob", as: bob)

        let metadata = try await club.rpc("2/files/get_metadata", ["path": "/who.txt"], token: alice.token)
        let sharing = metadata.json["sharing_info"] as? [String: Any]
        XCTAssertEqual(sharing?["modified_by"] as? String, ClubMember.accountID(of: bob.name), metadata.text)
        let listing = try await club.rpc("2/files/list_folder", ["path": ""], token: bob.token)
        let entry = (listing.json["entries"] as? [[String: Any]])?.first
        XCTAssertEqual((entry?["sharing_info"] as? [String: Any])?["modified_by"] as? String, ClubMember.accountID(of: bob.name))

        let history = try await club.rpc("2/files/list_revisions", ["path": "/who.txt"], token: bob.token)
        let result = try JSONDecoder().decode(ListRevisionsResult.self, from: history.body)
        XCTAssertEqual(result.entries.map { $0.sharingInfo?.modifiedBy }, [ClubMember.accountID(of: bob.name), ClubMember.accountID(of: alice.name)])

        // A restore is a revision by whoever restored it.
        let restored = try await club.rpc("2/files/restore", ["path": "/who.txt", "rev": aliceFile.rev], token: bob.token)
        XCTAssertEqual((restored.json["sharing_info"] as? [String: Any])?["modified_by"] as? String, ClubMember.accountID(of: bob.name), restored.text)
        // A change on disk has no author.
        try club.write("who.txt", "by hand")
        let afterDisk = try await club.rpc("2/files/list_revisions", ["path": "/who.txt", "limit": 1], token: bob.token)
        let newest = try JSONDecoder().decode(ListRevisionsResult.self, from: afterDisk.body).entries.first
        XCTAssertNotNil(newest?.sharingInfo)
        XCTAssertNil(newest?.sharingInfo?.modifiedBy)
    }

    /// Dropbox's account ids are exactly 40 characters and the SDKs check it; an id an older
    /// server gave (37 characters, the same id cut short) still names its member, answered with
    /// the 40-character id; an unknown id is `no_account`, as Dropbox says it.
    func testAccountIDsHaveDropboxLengthAndOldOnesStillResolve() async throws {
        let a = try await account(token: alice.token)
        XCTAssertEqual(a.accountID.count, 40, a.accountID)
        XCTAssertTrue(a.accountID.hasPrefix("dbid:"))
        let written = try await club.upload("/len.txt", Data("x".utf8))
        let modifiedBy = (written.json["sharing_info"] as? [String: Any])?["modified_by"] as? String
        // The shared token writes as `club`; its id is a member id like any other.
        XCTAssertEqual(modifiedBy, ClubMember.accountID(of: ClubMember.sharedName), written.text)
        XCTAssertEqual(modifiedBy?.count, 40, written.text)

        for id in [a.accountID, String(a.accountID.prefix(37))] {
            let reply = try await club.rpc("2/users/get_account", ["account_id": id], token: bob.token)
            XCTAssertEqual(reply.status, 200, "\(id): \(reply.text)")
            XCTAssertEqual(reply.json["account_id"] as? String, a.accountID, reply.text)
            XCTAssertEqual((reply.json["name"] as? [String: Any])?["display_name"] as? String, alice.name)
        }
        for id in ["dbid:" + String(repeating: "A", count: 35), String(a.accountID.prefix(30)), a.accountID + "x"] {
            let reply = try await club.rpc("2/users/get_account", ["account_id": id], token: bob.token)
            XCTAssertEqual(reply.status, 409, "\(id): \(reply.text)")
            XCTAssertEqual(reply.summary, "no_account", reply.text)
        }
    }

    func testMembersOnlyClubRefusesAnEmptySharedToken() async throws {
        await club.tearDown()
        let members = [alice]
        club = try await ServerFixture { $0.token = ""; $0.members = members }
        let none = try await club.post("2/users/get_current_account", body: Data("null".utf8), headers: ["Authorization": "Bearer "], token: "")
        XCTAssertEqual(none.status, 401)
        let a = try await account(token: alice.token)
        XCTAssertEqual(a.name.displayName, alice.name)
    }

    func testMemberOptionParsing() throws {
        XCTAssertEqual(try ClubMember(parsing: "ann=tok=en"), ClubMember(name: "ann", token: "tok=en"))
        XCTAssertEqual(try ClubMember(parsing: "Ann Lee=t"), ClubMember(name: "Ann Lee", token: "t"))
        for bad in ["ann", "=token", "ann=", " =x", "ann=a b", "a\u{7}b=x"] {
            XCTAssertThrowsError(try ClubMember(parsing: bad), bad)
        }
        XCTAssertThrowsError(try ClubMember.validate([ClubMember(name: "a", token: "t"), ClubMember(name: "b", token: "t")], sharedToken: nil))
        XCTAssertThrowsError(try ClubMember.validate([ClubMember(name: "a", token: "t")], sharedToken: "t"))
        XCTAssertNoThrow(try ClubMember.validate([ClubMember(name: "a", token: "t"), ClubMember(name: "a", token: "u")], sharedToken: "v"))
    }

    /// `byteclub serve --member` end to end: members' tokens work, bad lists are refused with a
    /// clear message before anything starts.
    func testServeWithMembers() async throws {
        let root = club.outside.appendingPathComponent("served")
        let server = try ServeChild(root: root, extraArguments: ["--member", "carol=carol-token", "--member", "dan=dan-token"])
        let carol = ServeChild.Client(port: server.port, token: "carol-token", session: server.session)
        let reply = try await carol.rpc("2/users/get_current_account", "null")
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual((reply.json["name"] as? [String: Any])?["display_name"] as? String, "carol")
        XCTAssertTrue(server.terminate(within: 10))

        let executable = try Requirement.byteclub()
        for (arguments, message) in [(["--member", "a=same", "--member", "b=same"], "share the token"),
                                     (["--member", "=x"], "needs a name"), (["--member", "nobody"], "NAME=TOKEN")] {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["serve", "--insecure-http", "--root", root.path, "--port", "0"] + arguments
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertNotEqual(process.terminationStatus, 0, arguments.joined(separator: " "))
            XCTAssertTrue(text.contains(message), text)
        }
    }
}
