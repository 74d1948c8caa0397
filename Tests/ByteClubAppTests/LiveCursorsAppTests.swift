@testable import ByteClubApp
import ClubServer
import Foundation
import Remote
import TerminalUI
import XCTest

/// Two apps in one live note, in this process, on a real club server with two members (ann
/// and ray): where each shows the other's caret and name tag (docs/live.md, "Cursors"), and how
/// each key goes into the shared document.
@MainActor
final class LiveCursorsAppTests: XCTestCase {
    var club: MembersClub?
    var apps: [Harness] = []
    var folder: URL!

    override func setUp() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-live-cursors-\(UUID().uuidString)")
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

    /// A member's app with the note open, live.
    private func open(_ member: String, token: String, in club: MembersClub, drafts: DraftStore? = nil) async throws -> Harness {
        let live = DropboxStore(displayName: "club", endpoints: .club(club.server.baseURL), tokens: StaticToken(token), configuration: .ephemeral)
        let liveFolder = folder.appendingPathComponent(member)
        let harness = Harness(store: club.store(token: token), drafts: drafts) { configuration in
            configuration.liveChannel = { fileID, deliver in live.openLive(fileID: fileID, deliver: deliver)! }
            configuration.liveFolder = liveFolder
        }
        apps.append(harness)
        await harness.start()
        harness.press(.enter)
        await harness.waitUntil("\(member)'s note open") { harness.app.state.note?.isEditing == true }
        return harness
    }

    /// A club whose one note is `minutes`, and ann's and ray's apps live in it with each other.
    private func bothLive(in minutes: String) async throws -> (ann: Harness, ray: Harness) {
        let club = try await MembersClub(notes: ["Minutes.md": minutes])
        self.club = club
        let ann = try await open("ann", token: club.annToken, in: club)
        let ray = try await open("ray", token: club.rayToken, in: club)
        await bothLive(ann, ray)
        return (ann, ray)
    }

    /// Waits for ann's and ray's apps to be live in the note with each other.
    private func bothLive(_ ann: Harness, _ ray: Harness) async {
        for (member, harness) in [("ann", ann), ("ray", ray)] {
            await harness.waitUntil("\(member) live with the other") {
                guard let live = harness.app.state.note?.live else { return false }
                return live.isJoined && live.members.count == 2 && live.me == member
            }
        }
    }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    private func text(_ harness: Harness) -> String { harness.app.state.note?.editor.body.text ?? "" }

    /// Issue 70: ray's caret and name tag on ann's screen stayed where his last cursor message
    /// put them, an offset her own typing before it had moved, until he pressed a key: her
    /// typing left them behind on her words. Her edits move the others' carets as theirs do.
    func testAMembersCaretAndNameTagFollowTheirTextWhenTheOtherTypesBeforeIt() async throws {
        let (ann, ray) = try await bothLive(in: "# Minutes\n\nAgenda:\n")

        // Ray types at the end, then steps back one: his last cursor message says where he is.
        ray.press(.documentEnd)
        type(ray, "ray was here")
        ray.press(.left)
        let rayAt = (text(ray) as NSString).range(of: "ray was here").upperBound - 1
        await ann.waitUntil("ray's words and his last cursor on ann's side") {
            self.text(ann).contains("ray was here") && ann.app.state.note?.live?.cursors["ray"] == rayAt
        }

        // Ann types before him; ray presses nothing.
        ann.press(.documentStart)
        type(ann, "ann: ")
        await ray.waitUntil("ann's words on ray's side") { self.text(ray).hasPrefix("ann: ") }
        XCTAssertEqual(text(ann), text(ray))
        let moved = (text(ann) as NSString).range(of: "ray was here").upperBound - 1
        XCTAssertEqual(ann.app.state.note?.live?.cursors["ray"], moved, "ray's caret moved on with his text")

        // On ann's screen: ray's caret on the "e" of "here", his name tag after his words.
        let canvas = ann.render(width: 120, height: 30)
        let row = try XCTUnwrap((0..<30).first { canvas.line($0).contains("ray was here") }, canvas.dump())
        let words = try XCTUnwrap(canvas.column(of: "ray was here", inRow: row))
        let caret = (0..<120).filter { x in
            let background = canvas.style(x: x, y: row).background
            return background == .magenta || background == .cyan
        }
        XCTAssertEqual(caret, [words + "ray was her".count], "ray's caret on his last letter:\n\(canvas.dump())")
        XCTAssertTrue(canvas.line(row).contains("ray was here ◂ ray"), "his tag after his words:\n\(canvas.dump())")
    }

    /// Issue 68, one journal per note: in a live note each key is journalled once, in the note's
    /// live journal. The draft's file (what makes `✎ unsaved` and `Restored…`) keeps no text of
    /// its own, is not written again for a burst of keys, and reads its text from the journal,
    /// the keys typed since its last write included. Before, the whole text went to the draft's
    /// file every 300 ms as well (a 1 MiB note's JSON: ~30 ms of CPU each time).
    func testALiveNotesDraftIsItsJournalEachKeyJournalledOnce() async throws {
        // The server waits a minute before writing: the draft stays while the test looks at it.
        let club = try await MembersClub(notes: ["Minutes.md": "# Minutes\n\nAgenda:\n"], writePause: .seconds(60))
        self.club = club
        let drafts = DraftStore(directory: folder.appendingPathComponent("ann-drafts"))
        let ann = try await open("ann", token: club.annToken, in: club, drafts: drafts)
        let ray = try await open("ray", token: club.rayToken, in: club)
        await bothLive(ann, ray)
        let id = try XCTUnwrap(ann.app.state.note?.draftID)
        let file = drafts.directory.appendingPathComponent(id + ".json")
        func raw() -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
        func inode() -> Int? { (try? FileManager.default.attributesOfItem(atPath: file.path))?[.systemFileNumber] as? Int }
        func journalled() -> Bool {
            guard let note = ann.app.state.note else { return false }
            return note.journalledVersion == note.version && drafts.load(id)?.body == self.text(ann)
        }

        ann.press(.documentEnd)
        type(ann, "- ann's point")
        await ann.waitUntil("ann's draft written") { journalled() }
        XCTAssertEqual(drafts.journal(of: id).map { URL(fileURLWithPath: $0).deletingLastPathComponent().path },
                       folder.appendingPathComponent("ann").path, "the draft names the note's live journal")
        XCTAssertFalse(raw().contains("ann's point"), "the draft's file holds no text:\n\(raw())")
        let written = try XCTUnwrap(inode())

        for word in [" and", " more", " words"] {
            type(ann, word)
            await ann.waitUntil("\(word) journalled") { journalled() }
            XCTAssertEqual(inode(), written, "a burst of keys writes no draft file")
        }
        await ray.waitUntil("ann's words on ray's side") { self.text(ray) == self.text(ann) }
        // What a restart finds: the whole text, from the journal.
        XCTAssertEqual(drafts.all().map(\.body), ["# Minutes\n\nAgenda:\n- ann's point and more words"])
        XCTAssertFalse(raw().contains("words"))
    }

    /// Issue 68, one note, one history: the club server writes a plain club's live note from its
    /// room (its welcome says so, and no app elects a writer), and takes that revision as every
    /// editor's new base. A line the shell adds meanwhile is merged into the room by the server,
    /// once, and reaches both editors as its edit: no banner, no reload, every word once.
    func testTheServerWritesTheLiveNoteAndMergesALineAddedOutsideIntoBothEditors() async throws {
        let (ann, ray) = try await bothLive(in: "# Minutes\n\nAgenda:\n")
        XCTAssertTrue(ann.app.liveNotes.serverWrites && ray.app.liveNotes.serverWrites)
        let club = try XCTUnwrap(self.club)
        let file = club.base.appendingPathComponent("club/byteclub/Minutes.md")
        func onDisk() -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

        ann.press(.documentEnd)
        type(ann, "- ann's point")
        await ray.waitUntil("ann's words on ray's side") { self.text(ray).contains("ann's point") }
        await ann.waitUntil("the server writes the note, and both take it as their base") {
            onDisk() == self.text(ann) && [ann, ray].allSatisfy { $0.app.state.note?.isModified == false }
        }

        // The shell's edit, over that revision: a line of its own under the title.
        let outside = onDisk().replacingOccurrences(of: "# Minutes\n", with: "# Minutes\nFrom the shell\n")
        _ = try await club.store(token: club.rayToken).upload(data: Data(outside.utf8), to: "/byteclub/Minutes.md", mode: .overwrite, autorename: false)
        for (member, harness) in [("ann", ann), ("ray", ray)] {
            await harness.waitUntil("the shell's line in \(member)'s editor") { self.text(harness).contains("From the shell") }
        }
        // Typed while it came: kept, and written with it.
        type(ann, " and more")
        await ann.waitUntil("the merged text written and taken") {
            onDisk() == self.text(ann) && self.text(ray) == self.text(ann) && ann.app.state.note?.isModified == false
        }
        XCTAssertEqual(text(ann), "# Minutes\nFrom the shell\n\nAgenda:\n- ann's point and more")
        for harness in [ann, ray] {
            XCTAssertNil(harness.app.state.note?.banner, "no banner: the room holds the change")
            XCTAssertNil(harness.app.state.note?.remoteChange)
        }
    }

    /// Issue 68: a key in a live note goes into the shared document as the editor made it
    /// (``TextBuffer/edits(since:)``), never recovered by comparing the whole text: ann and ray
    /// type, paste, delete, cut and undo at once; the texts meet and no key compared whole texts.
    func testEveryKindOfKeyGoesInAsTheEditorMadeItAndTheTextsMeet() async throws {
        let (ann, ray) = try await bothLive(in: "# Minutes\n\nAgenda:\n- one\n")
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

    /// Ann, alone in the note (not live), types a line at its end; her draft is written (its id
    /// returned), and her app goes.
    @discardableResult
    private func draftTypedAlone(in club: MembersClub, drafts: DraftStore) async throws -> String {
        let alone = try await open("ann", token: club.annToken, in: club, drafts: drafts)
        alone.press(.documentEnd)
        type(alone, "ann's draft line")
        await alone.waitUntil("ann's draft written, naming her own document's journal") {
            alone.app.state.note.map { $0.journalledVersion == $0.version } == true
                && drafts.journal(of: alone.app.state.note?.draftID ?? "") != nil
        }
        let id = alone.app.state.note?.draftID ?? ""
        alone.app.liveNotes.stop()
        alone.app.stopLiveUpdates()
        return id
    }

    /// A note with no live history, opened by ann from a draft she typed alone, and by ray from
    /// the file: both seed the shared document from the file's text (the same seed, one text),
    /// and her draft's line goes in once. Seeded from her draft's own text, the two seeds made
    /// the note twice on both screens (the live histories found it).
    func testARestoredDraftSeedsTheNoteFromTheFileNotFromItsOwnText() async throws {
        let club = try await MembersClub(notes: ["Minutes.md": "# Minutes\n\nAgenda:\n"])
        self.club = club
        let drafts = DraftStore(directory: folder.appendingPathComponent("drafts"))
        // Ann alone: the note is not live; her line is kept as a draft, and her app goes.
        try await draftTypedAlone(in: club, drafts: drafts)

        // Her app again, the draft restored; then ray, from the file.
        let ann = try await open("ann", token: club.annToken, in: club, drafts: drafts)
        XCTAssertEqual(ann.app.state.note?.banner?.hasPrefix("Restored your unsaved draft"), true, "\(ann.app.state.note?.banner ?? "no banner")")
        XCTAssertEqual(text(ann), "# Minutes\n\nAgenda:\nann's draft line")
        let ray = try await open("ray", token: club.rayToken, in: club)
        await bothLive(ann, ray)
        await ray.waitUntil("ann's line on ray's side") { self.text(ray).contains("ann's draft line") && self.text(ann) == self.text(ray) }
        XCTAssertEqual(text(ray), "# Minutes\n\nAgenda:\nann's draft line", "one text, her line once")
    }

    /// Issue 68: ann, alone in the note, types; ray comes. Her typing goes into the room as the
    /// operations her note's own document holds (started from the room's document, its log in
    /// while she was alone), not as a merge of texts; each word once on both screens.
    func testWhatAMemberTypedAloneGoesInAsTheOperationsItWasWhenAnotherComes() async throws {
        let club = try await MembersClub(notes: ["Minutes.md": "# Minutes\n\nAgenda:\n"])
        self.club = club
        let drafts = DraftStore(directory: folder.appendingPathComponent("drafts"))
        let ann = try await open("ann", token: club.annToken, in: club, drafts: drafts)
        await ann.waitUntil("ann alone in the note, its log in") { ann.app.state.note?.live?.members == ["ann"] }
        ann.press(.documentEnd)
        type(ann, "ann alone")
        await ann.waitUntil("ann's own document holds her typing") { ann.app.edits.ownDocument()?.text == self.text(ann) }
        XCTAssertEqual(ann.app.edits.ownDocument()?.isStarted(over: "# Minutes\n\nAgenda:\n"), true)
        let ray = try await open("ray", token: club.rayToken, in: club)
        await bothLive(ann, ray)
        await ray.waitUntil("ann's words on ray's side") { self.text(ray) == self.text(ann) && self.text(ray).contains("ann alone") }
        XCTAssertEqual(text(ray), "# Minutes\n\nAgenda:\nann alone", "her words once")
        XCTAssertEqual(ann.app.liveNotes.typingMergedAsText, 0, "her typing went in as the operations it was")

        // What she typed alone is still hers to undo in the live note (it said "Nothing of
        // yours to undo"), a typed run a step, and ray's word stays.
        ray.press(.documentEnd)
        type(ray, " ray")
        await ann.waitUntil("ray's word on ann's side") { self.text(ann).hasSuffix("ann alone ray") }
        var undos = 0
        while text(ann).contains("ann"), undos < 12 {
            ann.press(.ctrl("z"))
            undos += 1
        }
        XCTAssertEqual(text(ann), "# Minutes\n\nAgenda:\n ray", "her typing undone, ray's word kept")
        XCTAssertLessThanOrEqual(undos, 2, "a typed run a step, as the editor's undo, not a key a step")
        await ray.waitUntil("the undo on ray's side") { self.text(ray) == self.text(ann) }
    }

    /// Issue 68: ann, alone in the note, types and saves (Ctrl-S, the save path of any backend;
    /// the server takes the revision into the room), types on, and ray comes. Her typing up to
    /// the save is the file's; only what she typed since goes in at the join. Merged from the
    /// text she opened, her saved words went in a second time (the live histories' saves made
    /// alone found it in 290 seeds of 300).
    func testWhatAMemberSavedAloneIsOnceWhenAnotherComes() async throws {
        let club = try await MembersClub(notes: ["Minutes.md": "# Minutes\n\nAgenda:\n"])
        self.club = club
        let ann = try await open("ann", token: club.annToken, in: club)
        await ann.waitUntil("ann alone in the note") { ann.app.state.note?.live?.members == ["ann"] }
        ann.press(.documentEnd)
        type(ann, "- budget")
        ann.press(.ctrl("s"))
        await ann.waitUntil("ann's save on the server") {
            guard let note = ann.app.state.note else { return false }
            return note.baseText == "# Minutes\n\nAgenda:\n- budget" && !note.isSaving
        }
        type(ann, " 2027")
        let ray = try await open("ray", token: club.rayToken, in: club)
        await bothLive(ann, ray)
        await ray.waitUntil("ann's words on ray's side") { self.text(ray) == self.text(ann) && self.text(ray).contains("2027") }
        XCTAssertEqual(text(ray), "# Minutes\n\nAgenda:\n- budget 2027", "her saved words once, and what she typed since")
        XCTAssertEqual(text(ann), text(ray))
    }

    /// Issue 68: ann types alone and her app goes; her draft names her note's own document's
    /// journal. Her app again, the draft restored, and ray comes: the join takes the document up
    /// from that journal and sends its operations, with nothing typed since the restore.
    func testADraftTypedAloneIsTakenUpFromItsOwnDocumentAtTheJoin() async throws {
        let club = try await MembersClub(notes: ["Minutes.md": "# Minutes\n\nAgenda:\n"])
        self.club = club
        let drafts = DraftStore(directory: folder.appendingPathComponent("drafts"))
        let draftID = try await draftTypedAlone(in: club, drafts: drafts)
        XCTAssertEqual(drafts.journal(of: draftID)?.hasPrefix(drafts.localJournals.path), true, "the draft names her own document's journal")

        let ann = try await open("ann", token: club.annToken, in: club, drafts: drafts)
        XCTAssertEqual(text(ann), "# Minutes\n\nAgenda:\nann's draft line")
        XCTAssertNotNil(ann.app.state.note?.restoredOwnJournal, "the restored session knows its own document's journal")
        let ray = try await open("ray", token: club.rayToken, in: club)
        await bothLive(ann, ray)
        await ray.waitUntil("ann's line on ray's side") { self.text(ray).contains("ann's draft line") && self.text(ann) == self.text(ray) }
        XCTAssertEqual(text(ray), "# Minutes\n\nAgenda:\nann's draft line", "one text, her line once")
        XCTAssertEqual(ann.app.liveNotes.typingMergedAsText, 0, "taken up from her own document, not merged as text")
    }

    /// Issue 68: ray's app goes with nothing unsaved; ann, alone in the note, types a line, her
    /// app writes it (a revision from the shared document), and she types on in that line. Ray
    /// opens the note again over that revision. His join took the revision for a change made
    /// outside the live session (the file differed from the text his journal last took in) and
    /// merged it into a document that held it already: the line was twice on both screens (the
    /// live histories found it in 8 seeds of 100). Ann's app marks the revision in the room.
    func testAMemberBackInTheNoteDoesNotMergeInARevisionTheOthersWroteFromIt() async throws {
        let (ann, ray) = try await bothLive(in: "# Minutes\n\nAgenda:\n")
        ray.app.liveNotes.stop()
        ray.app.stopLiveUpdates()
        await ann.waitUntil("ann alone in the note") { ann.app.state.note?.live?.members == ["ann"] }

        ann.press(.documentEnd)
        type(ann, "- budget")
        await ann.waitUntil("ann's line written by her app") {
            guard let note = ann.app.state.note else { return false }
            return note.baseText == "# Minutes\n\nAgenda:\n- budget" && !note.isSaving
        }
        type(ann, " 2027")
        let back = try await open("ray", token: try XCTUnwrap(club).rayToken, in: try XCTUnwrap(club))
        await bothLive(ann, back)
        await back.waitUntil("one text on both screens") { self.text(back) == self.text(ann) && self.text(back).contains("2027") }
        XCTAssertEqual(text(back), "# Minutes\n\nAgenda:\n- budget 2027", "her line once")
    }
}
