@testable import ClubServer
import DropboxWire
import Foundation
import LiveText
import TestSupport
import XCTest

/// Issue 68, "one note, one history": a plain club's server writes each live note's file from its
/// room (``LiveRoom+File``), over a real server and real WebSocket clients, each member holding a
/// `LiveDocument` built from what the room sends.
final class LiveNoteWriterTests: XCTestCase {
    private var club: ServerFixture!
    private var tokens: [String: String] = [:]
    private var noteID = ""
    private var clients: [LiveClient] = []
    private let path = "/byteclub/minutes.md"

    override func setUp() async throws {
        var made: [String: String] = [:]
        club = try await ServerFixture { configuration in
            configuration.keepsMembers = true
            configuration.live.writePause = .milliseconds(300)
            configuration.live.maxFrameBytes = 256 * 1024
            let registry = MemberRegistry(root: configuration.root)
            for name in ["ann", "ray"] {
                guard let invite = try? registry.invite(name, role: .editor, hours: 1, server: URL(string: "http://h:1")!, pin: nil, actor: "test"),
                      let (token, _) = try? registry.redeem(secret: invite.secret) else { continue }
                made[name] = token
            }
        }
        tokens = made
        XCTAssertEqual(tokens.count, 2)
        noteID = try await upload("Minutes\n\nAgenda:\n", to: path, as: "ann")
    }

    override func tearDown() async throws {
        for client in clients { await client.close() }
        await club.tearDown()
    }

    @discardableResult
    private func upload(_ text: String, to path: String, as member: String) async throws -> String {
        let made = try await club.post("2/files/upload", body: Data(text.utf8), headers: [
            "Dropbox-API-Arg": #"{"path":"\#(path)","mode":"overwrite"}"#, "Content-Type": "application/octet-stream",
        ], token: tokens[member])
        XCTAssertEqual(made.status, 200, made.text)
        return try XCTUnwrap(made.json["id"] as? String)
    }

    private func join(_ name: String, file: String? = nil) async -> LiveClient {
        let client = LiveClient(port: club.server.port, token: tokens[name] ?? "", file: file ?? noteID, name: name)
        clients.append(client)
        await client.wait("joined") { $0.presences.contains { $0.contains(name) } }
        return client
    }

    /// A member's document: what the room sent it (its stored log, then relays), and its own updates.
    private struct Member {
        let client: LiveClient
        var document: LiveDocument
        var applied = 0

        init(_ client: LiveClient) {
            self.client = client
            document = LiveDocument(clientID: LiveDocument.randomClientID())
        }

        mutating func catchUp() throws {
            let updates = client.updates
            for update in updates[applied...] where !RevisionMark.isMark(update.bytes) {
                try document.apply(update: Data(update.bytes))
            }
            applied = updates.count
        }

        mutating func type(_ text: String, at offset: Int) {
            client.send(document.insert(text, at: offset))
        }
    }

    /// Waits until the note's room has looked at every update and at least `commits`
    /// revisions it was told of, and has nothing due: after that nothing more is written unless
    /// someone types or the file changes. (A test once waited out three pauses instead, and on a
    /// busy machine a write late by more than that passed unseen.)
    @discardableResult
    private func settled(commits: Int = 0, file: StaticString = #filePath, line: UInt = #line) async throws -> LiveRoomWriting {
        let room = try XCTUnwrap(LiveHub.roomName(forID: noteID))
        let deadline = ContinuousClock.now + .seconds(10)
        var last: LiveRoomWriting?
        while ContinuousClock.now < deadline {
            last = await club.server.liveHub.writing(room: room)
            if let last, last.settled, last.commitsSeen >= commits { return last }
            try await Task.sleep(for: .milliseconds(5))
        }
        XCTFail("the room did not settle after \(commits) revisions within 10 s: \(String(describing: last))", file: file, line: line)
        return try XCTUnwrap(last)
    }

    private var fileText: String {
        (try? String(contentsOf: club.root.appendingPathComponent(String(path.dropFirst())), encoding: .utf8)) ?? ""
    }

    private func revisions() async throws -> (entries: [[String: Any]], with: [String: [String]]) {
        let answer = try await club.rpc("2/byteclub/files/list_revisions", ["path": noteID, "mode": "id", "limit": 10], token: tokens["ann"])
        XCTAssertEqual(answer.status, 200, answer.text)
        return (answer.json["entries"] as? [[String: Any]] ?? [], answer.json["written_with"] as? [String: [String]] ?? [:])
    }

    func testTheServerWritesTheNoteFromItsRoomOnceABurstNamingEveryoneWhoTyped() async throws {
        var ann = Member(await join("ann"))
        XCTAssertTrue(ann.client.messages.contains(.control(.welcome(member: "ann", serverWrites: true))), "\(ann.client.messages)")
        // The room is seeded from the file before anyone joins: both members start from it.
        XCTAssertEqual(ann.client.updates.map(\.member), [""], "the seed, as from no member")
        try ann.catchUp()
        XCTAssertEqual(ann.document.text, "Minutes\n\nAgenda:\n")
        var ray = Member(await join("ray"))
        try ray.catchUp()
        XCTAssertEqual(ray.document.text, ann.document.text)

        // Ann first (ray has her words, so the room stored them first), then ray, within the pause.
        ann.type(" ann", at: 7)
        await ray.client.wait("ann's words") { $0.updates.count >= 2 }
        ray.type(" ray", at: ray.document.utf16Count - 1)
        // The seed, then the other's words (then, a pause later, the revision's mark).
        await ann.client.wait("ray's words") { $0.updates.count >= 2 }
        try ann.catchUp()
        try ray.catchUp()
        XCTAssertEqual(ann.document.text, "Minutes ann\n\nAgenda: ray\n")
        XCTAssertEqual(ray.document.text, ann.document.text)

        let written = AppHarness.eventually("the server writes the note", timeout: 10) { self.fileText == "Minutes ann\n\nAgenda: ray\n" }
        XCTAssertTrue(written, "the file: \(fileText)")
        // Its mark went through the room (stored and relayed before the file was written): a
        // member who comes back knows the revision came from the document.
        let digest = LiveFileText.digest(of: fileText)
        await ann.client.wait("the revision's mark") { $0.updates.contains { RevisionMark(decoding: $0.bytes)?.digest == digest } }
        let mark = try XCTUnwrap(ann.client.updates.compactMap { RevisionMark(decoding: $0.bytes) }.last)
        XCTAssertEqual(mark.digest, digest)
        XCTAssertTrue(ann.document.state.covers(mark.state))

        // One revision for the burst, by ann (the first who typed) with ray; none after it
        // while nobody types: the room has looked at the file again after its own revision.
        try await settled(commits: 1)
        let (entries, with) = try await revisions()
        XCTAssertEqual(entries.count, 2, "the upload and one revision: \(entries)")
        let newest = try XCTUnwrap(entries.first)
        XCTAssertEqual((newest["sharing_info"] as? [String: Any])?["modified_by"] as? String, ClubMember.accountID(of: "ann"))
        XCTAssertEqual(with[newest["rev"] as? String ?? ""], [ClubMember.accountID(of: "ray")])
    }

    /// A change made outside the live note (the shell's `edit`, another tool) is merged into the
    /// room's document once, as the server's edit every member receives, word by word: a line
    /// added between two lines the members typed on is there once, and so is every word they typed.
    func testAChangeMadeOutsideTheLiveNoteIsMergedIntoItOnce() async throws {
        var ann = Member(await join("ann"))
        try ann.catchUp()
        ann.type(" ann", at: 7)
        ann.type(" more", at: ann.document.utf16Count - 1)
        XCTAssertTrue(AppHarness.eventually("the server writes the note", timeout: 10) { self.fileText == "Minutes ann\n\nAgenda: more\n" },
                      "the file: \(fileText)")

        // Outside the live note, over the last revision: a line between the two lines ann typed on.
        func fromTheServer(_ client: LiveClient) -> Int { client.updates.filter { $0.member == "" && !RevisionMark.isMark($0.bytes) }.count }
        let before = fromTheServer(ann.client)
        try await upload("Minutes ann\nfrom the shell\n\nAgenda: more\n", to: path, as: "ray")
        await ann.client.wait("the server's merge") { fromTheServer($0) > before }
        try ann.catchUp()
        XCTAssertEqual(ann.document.text, "Minutes ann\nfrom the shell\n\nAgenda: more\n")
        // Typed meanwhile, and written with it.
        ann.type(" again", at: ann.document.utf16Count - 1)
        XCTAssertTrue(AppHarness.eventually("the server writes both", timeout: 10) {
            self.fileText == "Minutes ann\nfrom the shell\n\nAgenda: more again\n"
        }, "the file: \(fileText)")
        let digest = LiveFileText.digest(of: fileText)
        await ann.client.wait("the last revision's mark") { $0.updates.last.flatMap { RevisionMark(decoding: $0.bytes) }?.digest == digest }
    }

    /// `restore` of the note's first revision, while a member is in it: the document goes back
    /// to it too, though it was once that text (the room was seeded from it). Held for that, the
    /// restore was never taken in, and the server wrote the member's newer text back over it
    /// (the torture's seed 16663060786968167069: lines a restore took out came back).
    func testARestoreOfATextTheDocumentOnceWasIsTakenInNotWrittenOver() async throws {
        var ann = Member(await join("ann"))
        try ann.catchUp()
        let before = try await revisions().entries
        let first = try XCTUnwrap(before.last?["rev"] as? String)
        ann.type(" ann", at: 7)
        XCTAssertTrue(AppHarness.eventually("the server writes the note", timeout: 10) { self.fileText == "Minutes ann\n\nAgenda:\n" },
                      "the file: \(fileText)")
        try await settled(commits: 1)

        let fromTheServer = ann.client.updates.count
        let restored = try await club.rpc("2/files/restore", ["path": path, "rev": first], token: tokens["ray"])
        XCTAssertEqual(restored.status, 200, restored.text)
        // The server takes the restore into the document, as its own edit ann receives.
        await ann.client.wait("the restore, taken in") { $0.updates.count > fromTheServer }
        try await settled(commits: 2)
        try ann.catchUp()
        XCTAssertEqual(ann.document.text, "Minutes\n\nAgenda:\n")
        XCTAssertEqual(fileText, "Minutes\n\nAgenda:\n", "the restore stands")
        let (entries, _) = try await revisions()
        XCTAssertEqual(entries.count, 3, "the upload, ann's word and the restore, and nothing written over it: \(entries)")
    }

    /// A file changed while no one was in the room is taken into the room before the next
    /// joiner gets the log: that joiner's text holds it at once (it showed the room's older text,
    /// and a save from it wrote over the change), and it is merged once, however many join.
    func testAFileChangedWhileTheRoomWasEmptyIsInTheRoomBeforeTheNextJoinerGetsIt() async throws {
        var ann = Member(await join("ann"))
        try ann.catchUp()
        ann.type(" ann", at: 7)
        XCTAssertTrue(AppHarness.eventually("the server writes the note", timeout: 10) { self.fileText == "Minutes ann\n\nAgenda:\n" })
        await ann.client.close()

        try await upload("Minutes ann\n\nAgenda:\n- from the shell\n", to: path, as: "ann")
        for name in ["ray", "ann"] {
            var member = Member(await join(name))
            try member.catchUp()
            XCTAssertEqual(member.document.text, "Minutes ann\n\nAgenda:\n- from the shell\n", "\(name)'s text")
        }
        // The document holds the file: nothing to write, and no second merge.
        try await settled()
        XCTAssertEqual(fileText, "Minutes ann\n\nAgenda:\n- from the shell\n")
        let (entries, _) = try await revisions()
        XCTAssertEqual(entries.count, 3, "the upload, ann's burst and the shell's upload, and no revision of the room's: \(entries)")
    }

    /// The document and its marks after the file is taken in: it holds the file, so taking it
    /// in again (the server after a restart, with no base of its own) changes nothing.
    func testAFileTakenInIsHeldAndNotTakenInTwice() throws {
        var seed = LiveDocument(clientID: LiveFileText.seedClientID(for: "one\ntwo\n"))
        var member = LiveDocument(clientID: 5)
        let seeded = seed.insert("one\ntwo\n", at: 0)
        try member.apply(update: seeded)
        let typed = member.insert(" typed", at: 3)
        let frames = [seeded, typed].map { LiveFrame.encode(member: "ann", update: $0) }
        var text = try XCTUnwrap(LiveFileText(frames: frames, clientID: 9))
        XCTAssertTrue(text.holds("one\ntwo\n"), "the seed")
        let outside = "one\ntwo\nthree\n"
        let updates = text.takeIn(outside, base: "one\ntwo\n")
        XCTAssertEqual(text.text, "one typed\ntwo\nthree\n")
        XCTAssertTrue(updates.last.map { RevisionMark.isMark($0) } ?? false, "a mark of the file, last")
        XCTAssertTrue(text.holds(outside))
        var again = try XCTUnwrap(LiveFileText(frames: frames + updates.map { LiveFrame.encode(member: "", update: $0) }, clientID: 9))
        XCTAssertEqual(again.takeIn(outside, base: nil), [], "held: not merged again")
        XCTAssertEqual(again.text, "one typed\ntwo\nthree\n")
    }

    /// A file put back at a text the document once was (its seed, an older revision) did not
    /// come from it: only the newest mark's text is held, and a server started again (no base
    /// of its own) takes as the base the revision the newest mark names, not the newest
    /// revision any mark names, which was the restore itself.
    func testAFileBackAtAnOlderRevisionIsAChangeTakenInAfterARestartToo() throws {
        var seed = LiveDocument(clientID: LiveFileText.seedClientID(for: "one\n"))
        var member = LiveDocument(clientID: 5)
        let seeded = seed.insert("one\n", at: 0)
        try member.apply(update: seeded)
        var frames = [LiveFrame.encode(member: "", update: seeded)]
        for word in [" a", " b"] {
            frames.append(LiveFrame.encode(member: "ann", update: member.insert(word, at: member.utf16Count - 1)))
            let mark = RevisionMark(digest: LiveFileText.digest(of: member.text), state: member.state)
            frames.append(LiveFrame.encode(member: "ann", update: Data(mark.encoded())))
        }
        var text = try XCTUnwrap(LiveFileText(frames: frames, clientID: 9))
        XCTAssertEqual(text.text, "one a b\n")
        XCTAssertTrue(text.holds("one a b\n"))
        for older in ["one\n", "one a\n"] {
            XCTAssertFalse(text.holds(older), "\(older.debugDescription) was the document's, and is not now")
        }
        // The revisions newest first, the restore of the first among them: the base is the
        // revision the newest mark names.
        let history = ["one\n", "one a b\n", "one a\n", "one\n"]
        XCTAssertEqual(text.newestHeld(among: history), "one a b\n")
        XCTAssertEqual(text.newestHeld(among: ["one a\n", "one\n"]), "one a\n", "the next newest mark's, when the newest is not among them")
        _ = text.takeIn("one\n", base: text.newestHeld(among: history))
        XCTAssertEqual(text.text, "one\n", "the restore taken in")
        XCTAssertTrue(text.holds("one\n"))
    }

    /// A note too big to send as one frame is not seeded by the server, which then leaves the
    /// note to its members (they were told the server wrote it, and nothing did).
    func testANoteTooBigForOneFrameIsLeftToItsMembers() async throws {
        let big = String(repeating: "A line of a long note.\n", count: 300 * 1024 / 23)
        let id = try await upload(big, to: "/byteclub/big.md", as: "ann")
        let ann = LiveClient(port: club.server.port, token: tokens["ann"] ?? "", file: id, name: "ann")
        clients.append(ann)
        await ann.wait("joined") { $0.presences.contains { $0.contains("ann") } }
        XCTAssertTrue(ann.messages.contains(.control(.welcome(member: "ann", serverWrites: false))), "\(ann.messages.prefix(2))")
        XCTAssertTrue(ann.updates.isEmpty, "no seed")
    }

    /// A room the server writes from holds only what it can read: bytes that are no live-text
    /// update are refused (stored, they left a log no one could write the note from).
    func testBytesThatAreNoUpdateAreRefusedInARoomTheServerWritesFrom() async throws {
        var ann = Member(await join("ann"))
        try ann.catchUp()
        ann.client.send([UInt8]("not an update".utf8))
        await ann.client.wait("the refusal") { $0.errors.contains("update refused: not a live text update") }
        ann.type(" ann", at: 7)
        XCTAssertTrue(AppHarness.eventually("the server writes the note", timeout: 10) { self.fileText == "Minutes ann\n\nAgenda:\n" },
                      "the file: \(fileText)")
    }

    /// An encrypted club's room is sealed: its members write the note, as before.
    func testAnEncryptedClubsNoteIsLeftToItsMembers() async throws {
        try FileManager.default.createDirectory(at: club.root.appendingPathComponent("byteclub/.clubkeys"), withIntermediateDirectories: true)
        let ann = await join("ann")
        XCTAssertTrue(ann.messages.contains(.control(.welcome(member: "ann", serverWrites: false))), "\(ann.messages)")
        XCTAssertTrue(ann.updates.isEmpty, "no seed from a file the server cannot read")
        ann.send([UInt8](Data("sealed, say".utf8)))
        ann.sendText(#"{"type":"presence"}"#)
        await ann.wait("the presence asked for") { $0.presences.count == 2 }
        // The update is stored and relayed before the presence is answered: the room has it,
        // and has no writer to write from it.
        let writing = try await settled()
        XCTAssertFalse(writing.serverWrites)
        XCTAssertEqual(fileText, "Minutes\n\nAgenda:\n")
    }
}
