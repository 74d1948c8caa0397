@testable import ByteClubApp
import ClubServer
import Foundation
import Remote
import TerminalUI
import XCTest

/// Issue 68: a key in a live note goes into the shared document as the editor made it
/// (``TextBuffer/edits(since:)``), never recovered by comparing the whole text. Two apps in this
/// process on a real club server, ann and ray, type, paste, delete, cut and undo at once; the
/// texts meet and no key compared whole texts.
@MainActor
final class LiveEditsAppTests: XCTestCase {
    var club: MembersClub?
    var apps: [Harness] = []
    var folder: URL!

    override func setUp() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-live-edits-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        for harness in apps {
            harness.app.liveNotes.stop()
            harness.app.stopLiveUpdates()
        }
        apps = []
        await club?.close()
        club = nil
        try? FileManager.default.removeItem(at: folder)
    }

    private func open(_ member: String, token: String, in club: MembersClub) async throws -> Harness {
        let live = DropboxStore(displayName: "club", endpoints: .club(club.server.baseURL), tokens: StaticToken(token), configuration: .ephemeral)
        let liveFolder = folder.appendingPathComponent(member)
        let harness = Harness(store: club.store(token: token)) { configuration in
            configuration.liveChannel = { fileID, deliver in live.openLive(fileID: fileID, deliver: deliver)! }
            configuration.liveFolder = liveFolder
        }
        apps.append(harness)
        await harness.start()
        harness.press(.enter)
        await harness.waitUntil("\(member)'s note open") { harness.app.state.note?.isEditing == true }
        return harness
    }

    private func text(_ harness: Harness) -> String { harness.app.state.note?.editor.body.text ?? "" }

    func testEveryKindOfKeyGoesInAsTheEditorMadeItAndTheTextsMeet() async throws {
        let club = try await MembersClub(notes: ["Minutes.md": "# Minutes\n\nAgenda:\n- one\n"])
        self.club = club
        let ann = try await open("ann", token: club.annToken, in: club)
        let ray = try await open("ray", token: club.rayToken, in: club)
        for (member, harness) in [("ann", ann), ("ray", ray)] {
            await harness.waitUntil("\(member) live with the other") {
                guard let live = harness.app.state.note?.live else { return false }
                return live.isJoined && live.members.count == 2 && live.me == member
            }
        }
        let joinedSyncs = [ann.app.liveNotes.wholeTextSyncs, ray.app.liveNotes.wholeTextSyncs]

        // Both at once: ann at the top, ray at the end, keys of every kind interleaved.
        ann.press(.documentStart)
        ray.press(.documentEnd)
        let annKeys: [Key] = [.char("A"), .char("n"), .char("n"), .enter, .char("é"), .char("😀"), .backspace, .paste("pasted\ntwo lines"),
                              .left, .left, .delete, .ctrl("z"), .end, .char("!")]
        let rayKeys: [Key] = [.char("-"), .char(" "), .char("t"), .char("w"), .char("o"), .enter, .char("x"), .backspace, .paste("👩‍👩‍👧 family"),
                              .home, .ctrl("k"), .char("r"), .ctrl("z"), .ctrl("y"), .char("y")]
        for index in 0..<max(annKeys.count, rayKeys.count) {
            if index < annKeys.count { ann.press(annKeys[index]) }
            if index < rayKeys.count { ray.press(rayKeys[index]) }
        }
        await ray.waitUntil("the two texts the same") { self.text(ann) == self.text(ray) && !self.text(ann).isEmpty }
        await ann.waitUntil("the two texts still the same") { self.text(ann) == self.text(ray) }
        // Ann: "Ann", a line, "é", an emoji taken back by Backspace (whole), a paste, a Delete
        // undone, "!" at the line's end. Ray: "- two", "x" taken back, a paste cut with Ctrl-K,
        // "r" undone and redone, "y".
        XCTAssertEqual(text(ann), "Ann\népasted\ntwo lines# Minutes!\n\nAgenda:\n- one\n- two\nry")
        XCTAssertEqual([ann.app.liveNotes.wholeTextSyncs, ray.app.liveNotes.wholeTextSyncs], joinedSyncs,
                       "no key compared whole texts")
    }
}
