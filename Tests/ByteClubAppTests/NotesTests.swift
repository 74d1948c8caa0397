@testable import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// The Notes tab against a real club server with the sample club: the editor, saving (add,
/// update at the opened rev, rename), the conflict dialog, drafts and read-only notes.
@MainActor
final class NotesTests: XCTestCase {
    var club: SampleClubServer?
    var draftsDirectory: URL!

    override func setUp() async throws {
        draftsDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-drafts-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        await club?.close()
        club = nil
        try? FileManager.default.removeItem(at: draftsDirectory)
    }

    var notesFolder: URL { club!.base.appendingPathComponent("club/byteclub") }
    var welcome: URL { notesFolder.appendingPathComponent("Welcome to Byte Club.txt") }

    private func harness(start: Bool = true) async throws -> Harness {
        let club = try await SampleClubServer()
        self.club = club
        let harness = Harness(store: club.store(), drafts: DraftStore(directory: draftsDirectory))
        if start { await harness.start() }
        return harness
    }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    /// Opens the note at `row` of the list and waits for its text.
    private func open(_ harness: Harness, row: Int = 0) async {
        harness.app.update { $0.notes.list.selected = row }
        harness.press(.enter)
        await harness.waitUntil("the note to open") { harness.app.state.note?.isEditing == true }
    }

    func testANewNoteIsSavedWithAddAndTxt() async throws {
        let harness = try await harness()
        harness.press(.char("n"))
        XCTAssertEqual(harness.app.state.note?.editor.focus, .title)
        type(harness, "Challenge for Ray")
        harness.press(.enter)
        XCTAssertEqual(harness.app.state.note?.editor.focus, .body)
        type(harness, "Beat this: 你好, Grüße!")
        XCTAssertTrue(harness.app.state.note?.isModified ?? false)
        XCTAssertTrue(harness.app.state.hasUnsavedEdits)
        for (width, height) in [(80, 24), (120, 36)] {
            assertSnapshot(harness.render(width: width, height: height), named: "editor-new-\(width)x\(height)")
        }
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save") { harness.app.state.message?.text == "Saved \"Challenge for Ray.md\"" }
        XCTAssertEqual(try Data(contentsOf: notesFolder.appendingPathComponent("Challenge for Ray.md")), Data("Beat this: 你好, Grüße!".utf8))
        XCTAssertFalse(harness.app.state.note?.isModified ?? true)
        XCTAssertFalse(harness.app.state.hasUnsavedEdits)
        XCTAssertEqual(DraftStore(directory: draftsDirectory).all(), [], "the draft goes once the server confirmed")
        await harness.waitUntil("the list to show it") { harness.app.state.notes.entries.contains { $0.name == "Challenge for Ray.md" } }
    }

    func testEditingAnExistingNoteUpdatesItsRevAndJournalsADraft() async throws {
        let harness = try await harness()
        await open(harness)
        let session = try XCTUnwrap(harness.app.state.note)
        XCTAssertEqual(session.entry?.name, "Welcome to Byte Club.txt")
        XCTAssertEqual(session.editor.focus, .body)
        XCTAssertEqual(session.editor.body.text, try String(contentsOf: welcome, encoding: .utf8))
        for (width, height) in [(80, 24), (120, 36)] {
            assertSnapshot(harness.render(width: width, height: height), named: "editor-open-\(width)x\(height)")
        }
        type(harness, "Hi! ")
        await harness.waitUntil("the draft on disk") {
            DraftStore(directory: self.draftsDirectory).all().first?.body.hasPrefix("Hi! ") == true
        }
        let draft = try XCTUnwrap(DraftStore(directory: draftsDirectory).all().first)
        XCTAssertEqual(draft.path, "/byteclub/Welcome to Byte Club.txt")
        XCTAssertEqual(draft.baseRev, session.baseRev)

        harness.press(.ctrl("s"))
        await harness.waitUntil("the save") { harness.app.state.message?.text == "Saved \"Welcome to Byte Club.txt\"" }
        XCTAssertTrue(try String(contentsOf: welcome, encoding: .utf8).hasPrefix("Hi! "))
        XCTAssertNotEqual(harness.app.state.note?.baseRev, session.baseRev, "the next save updates the new rev")
        XCTAssertEqual(DraftStore(directory: draftsDirectory).all(), [])
    }

    /// Issue 68, one journal per note: a note edited with no live channel journals each key to
    /// its own document's journal (`DRAFTS/local/`), as the editor made it; the draft's file says
    /// which note and rev, holds no text, and is not written again while the user types. A
    /// restart reads the whole text from the journal. A save takes the draft and its journal
    /// away. Before, the whole text went to the draft's file every 300 ms.
    func testANotesDraftIsItsOwnJournalEachKeyAnAppend() async throws {
        let harness = try await harness()
        await open(harness)
        let id = try XCTUnwrap(harness.app.state.note?.draftID)
        let drafts = DraftStore(directory: draftsDirectory)
        let file = draftsDirectory.appendingPathComponent(id + ".json")
        func raw() -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
        func inode() -> Int? { (try? FileManager.default.attributesOfItem(atPath: file.path))?[.systemFileNumber] as? Int }
        func journalled() -> Bool {
            guard let note = harness.app.state.note else { return false }
            // Its journal is started off the UI queue at the first key; until it is, the draft holds its text.
            return note.journalledVersion == note.version && drafts.journal(of: id) != nil && drafts.load(id)?.body == note.editor.body.text
        }
        type(harness, "Hi! ")
        await harness.waitUntil("the draft on disk") { journalled() }
        let journal = try XCTUnwrap(drafts.journal(of: id))
        XCTAssertTrue(journal.hasPrefix(drafts.localJournals.path + "/"), journal)
        XCTAssertFalse(raw().contains("Hi! "), "the draft's file holds no text:\n\(raw())")
        let written = try XCTUnwrap(inode())
        for word in ["one ", "two ", "three "] {
            type(harness, word)
            await harness.waitUntil("\(word) journalled") { journalled() }
            XCTAssertEqual(inode(), written, "a burst of keys writes no draft file")
        }
        // What a restart finds, and restores.
        let welcomeText = try String(contentsOf: welcome, encoding: .utf8)
        XCTAssertEqual(drafts.all().map(\.body), ["Hi! one two three " + welcomeText])

        harness.press(.ctrl("s"))
        await harness.waitUntil("the save") { harness.app.state.message?.text == "Saved \"Welcome to Byte Club.txt\"" }
        XCTAssertEqual(drafts.all(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: journal), "the journal went with its draft")
        // Typed on after the save: a journal of its own again, from the saved text.
        type(harness, "After ")
        await harness.waitUntil("the new draft on disk") { journalled() }
        XCTAssertEqual(drafts.all().map(\.body), ["Hi! one two three After " + welcomeText])
    }

    /// A change that cannot be merged (the title changed too, so the note would move: a merge
    /// works on one note at one path) is the conflict dialog. A note whose text alone both
    /// changed is merged, with the text the editor opened as the base (the merge view where the
    /// same lines changed).
    func testAConflictOffersThreeChoicesAndCancelKeepsTheText() async throws {
        let harness = try await harness()
        await open(harness)
        try "Changed by Anna\n".write(to: welcome, atomically: true, encoding: .utf8)
        type(harness, "Mine ")
        harness.press(.ctrl("t"), .end)
        type(harness, "!")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the conflict dialog") { harness.compositor.top is DialogLayer }
        for (width, height) in [(80, 24), (120, 36)] {
            assertSnapshot(harness.render(width: width, height: height), named: "conflict-\(width)x\(height)")
        }
        harness.press(.escape)
        XCTAssertFalse(harness.compositor.top is DialogLayer)
        XCTAssertTrue(harness.app.state.note?.editor.body.text.hasPrefix("Mine ") ?? false)
        XCTAssertEqual(try String(contentsOf: welcome, encoding: .utf8), "Changed by Anna\n")
        XCTAssertTrue(DraftStore(directory: draftsDirectory).all().contains { $0.body.hasPrefix("Mine ") })
    }

    func testSurvivingDraftsAreMarkedAndRestoredWithABanner() async throws {
        let harness = try await harness(start: false)
        let entry = try await club!.store().metadata("/byteclub/Welcome to Byte Club.txt")
        let drafts = DraftStore(directory: draftsDirectory)
        try drafts.save(Draft(id: Draft.id(forPath: entry.path), path: entry.path, baseRev: entry.rev, title: "Welcome to Byte Club",
                              body: "My unsaved welcome", updated: Clock.ago(300)))
        try drafts.save(Draft(id: "new-1", path: nil, baseRev: nil, title: "Half an idea", body: "so far", updated: Clock.ago(60)))
        await harness.start()
        XCTAssertEqual(harness.app.state.drafts.count, 2)
        for (width, height) in [(80, 24), (120, 36)] {
            assertSnapshot(harness.render(width: width, height: height), named: "notes-drafts-\(width)x\(height)")
        }
        // Row 0 is the new note's draft; row 1 the welcome note, marked.
        await open(harness, row: 1)
        let session = try XCTUnwrap(harness.app.state.note)
        XCTAssertEqual(session.editor.body.text, "My unsaved welcome")
        XCTAssertEqual(session.baseRev, entry.rev, "a restored draft still saves against the rev it was opened at")
        XCTAssertTrue(session.isModified)
        for (width, height) in [(80, 24), (120, 36)] {
            assertSnapshot(harness.render(width: width, height: height), named: "draft-banner-\(width)x\(height)")
        }
    }

    /// A draft `byteclub edit` kept with both sides marked, opened in the app: `Ctrl-S` gives the
    /// shell's answer (nothing saved, the text kept as a draft), never the markers into the club
    /// (the simulation's app histories, seed 39 on WebDAV: saved markers doubled lines later).
    func testADraftStillHoldingConflictMarkersIsNotSaved() async throws {
        let harness = try await harness(start: false)
        let entry = try await club!.store().metadata("/byteclub/Welcome to Byte Club.txt")
        let before = try Data(contentsOf: welcome)
        let marked = "Welcome\n<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> ann\n"
        let drafts = DraftStore(directory: draftsDirectory)
        try drafts.save(Draft(id: Draft.id(forPath: entry.path), path: entry.path, baseRev: entry.rev, title: "Welcome to Byte Club",
                              body: marked, updated: Clock.ago(300)))
        await harness.start()
        await open(harness, row: 0)
        XCTAssertEqual(harness.app.state.note?.editor.body.text, marked)
        harness.press(.ctrl("s"))
        XCTAssertEqual(harness.app.state.message?.kind, .error)
        XCTAssertEqual(harness.app.state.message?.text,
                       "\"Welcome to Byte Club\" still holds conflict markers (<<<<<<< yours … >>>>>>>); nothing was saved, your text is kept as a draft")
        XCTAssertEqual(try Data(contentsOf: welcome), before, "the club's note is as it was")
        XCTAssertTrue(harness.app.state.note?.isModified ?? false)
        XCTAssertEqual(drafts.load(Draft.id(forPath: entry.path))?.body, marked, "the draft still holds the text")
    }

    func testTextThatIsNotUTF8OpensReadOnlyAndIsNeverSaved() async throws {
        let harness = try await harness(start: false)
        let bytes = Data([0x48, 0x69, 0x20, 0xFF, 0xFE, 0x0A])
        try bytes.write(to: notesFolder.appendingPathComponent("Binary.txt"))
        await harness.start()
        let row = harness.app.noteItems.firstIndex { if case .note(let e, _) = $0 { return e.name == "Binary.txt" } else { return false } }
        await open(harness, row: try XCTUnwrap(row))
        XCTAssertTrue(harness.app.state.note?.isReadOnly ?? false)
        XCTAssertEqual(harness.app.state.message?.kind, .error)
        harness.press(.char("x"))
        harness.press(.ctrl("s"))
        XCTAssertEqual(try Data(contentsOf: notesFolder.appendingPathComponent("Binary.txt")), bytes)
        XCTAssertFalse(harness.app.state.note?.isModified ?? true)
        harness.press(.escape)
        XCTAssertNil(harness.app.state.note, "nothing to ask about: a read-only note closes at once")
    }

    func testEscapeWithChangesAsksAndAnEmptyNoteAsksBeforeSaving() async throws {
        let harness = try await harness()
        harness.press(.char("n"))
        type(harness, "Empty")
        harness.press(.enter)
        harness.press(.ctrl("s"))
        let dialog = try XCTUnwrap(harness.compositor.top as? DialogLayer)
        XCTAssertEqual(dialog.modal.title, "Empty note")
        harness.press(.escape)
        harness.press(.escape)
        let ask = try XCTUnwrap(harness.compositor.top as? DialogLayer)
        XCTAssertEqual(ask.modal.buttons, ["Save", "Discard", "Cancel"])
        harness.press(.char("d"))
        XCTAssertNil(harness.app.state.note)
        XCTAssertFalse(FileManager.default.fileExists(atPath: notesFolder.appendingPathComponent("Empty.txt").path))
    }

    func testANewTitleMovesTheNoteThenSavesAtItsNewRev() async throws {
        let harness = try await harness()
        await open(harness)
        type(harness, "Renamed and edited. ")
        harness.press(.ctrl("t"))
        harness.press(.ctrl("u"))
        type(harness, "Hello Club")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save") { harness.app.state.message?.text == "Saved \"Hello Club.txt\"" }
        XCTAssertFalse(FileManager.default.fileExists(atPath: welcome.path))
        let moved = notesFolder.appendingPathComponent("Hello Club.txt")
        XCTAssertTrue(try String(contentsOf: moved, encoding: .utf8).hasPrefix("Renamed and edited. Welcome"))
        XCTAssertEqual(harness.app.state.note?.entry?.name, "Hello Club.txt")

        // Renaming a note someone else changed meanwhile is a conflict, not a silent move.
        try "Anna was here\n".write(to: moved, atomically: true, encoding: .utf8)
        harness.press(.ctrl("t"))
        harness.press(.ctrl("u"))
        type(harness, "Hello again")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the conflict dialog") { harness.compositor.top is DialogLayer }
        XCTAssertEqual(try String(contentsOf: moved, encoding: .utf8), "Anna was here\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: notesFolder.appendingPathComponent("Hello again.txt").path))
    }

    func testANewNoteNamedLikeAnExistingOneAsksWithoutReloadTheirs() async throws {
        let harness = try await harness()
        harness.press(.char("n"))
        // New notes are .md: the title names the existing .txt note's extension itself.
        type(harness, "Welcome to Byte Club.txt")
        harness.press(.enter)
        type(harness, "Mine")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the conflict dialog") { harness.compositor.top is DialogLayer }
        let dialog = try XCTUnwrap(harness.compositor.top as? DialogLayer)
        XCTAssertEqual(dialog.modal.buttons, ["Overwrite", "Save as copy", "Cancel"])
        XCTAssertEqual(dialog.state.selected, 2, "Cancel is the default")
        harness.press(.char("s"))
        await harness.waitUntil("the copy") { harness.app.state.message?.text.hasPrefix("Saved \"Welcome to Byte Club (conflicted copy of") == true }
        XCTAssertTrue(try String(contentsOf: welcome, encoding: .utf8).hasPrefix("Welcome to Byte Club!"), "theirs untouched")
        XCTAssertTrue(harness.app.state.note?.editor.title.text.hasPrefix("Welcome to Byte Club (conflicted copy of") ?? false,
                      "the editor now edits the copy")
    }

    func testSavingKeepsAMarkdownNoteMarkdownAndATakenTitleIsRefused() async throws {
        let harness = try await harness(start: false)
        try "# Rules\n".write(to: notesFolder.appendingPathComponent("rules.md"), atomically: true, encoding: .utf8)
        try "Taken\n".write(to: notesFolder.appendingPathComponent("Taken.md"), atomically: true, encoding: .utf8)
        await harness.start()
        let row = harness.app.noteItems.firstIndex { if case .note(let e, _) = $0 { return e.name == "rules.md" } else { return false } }
        await open(harness, row: try XCTUnwrap(row))
        type(harness, "More ")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save") { harness.app.state.message?.text == "Saved \"rules.md\"" }
        XCTAssertEqual(try String(contentsOf: notesFolder.appendingPathComponent("rules.md"), encoding: .utf8), "More # Rules\n")

        // A new title keeps the extension; one that another note has is refused, nothing moves.
        harness.press(.ctrl("t"))
        harness.press(.ctrl("u"))
        type(harness, "Taken")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the refusal") { harness.app.state.message?.text.contains("already exists") == true }
        XCTAssertEqual(harness.app.state.message?.text.hasPrefix("A note named \"Taken.md\""), true)
        XCTAssertEqual(try String(contentsOf: notesFolder.appendingPathComponent("Taken.md"), encoding: .utf8), "Taken\n")
        harness.press(.ctrl("u"))
        type(harness, "House rules")
        harness.press(.ctrl("s"))
        await harness.waitUntil("the rename") { harness.app.state.message?.text == "Saved \"House rules.md\"" }
        XCTAssertFalse(FileManager.default.fileExists(atPath: notesFolder.appendingPathComponent("rules.md").path))
    }

    func testFileNamesFollowTheTitle() {
        XCTAssertEqual(NoteSession.fileName(forTitle: "v1.2 plan"), "v1.2 plan.md", "a dot inside a title is not an extension")
        XCTAssertEqual(NoteSession.fileName(forTitle: "notes.md"), "notes.md")
        XCTAssertEqual(NoteSession.fileName(forTitle: "rules", replacing: "rules.md"), "rules.md")
        XCTAssertEqual(NoteSession.fileName(forTitle: "house rules", replacing: "rules.md"), "house rules.md")
        XCTAssertEqual(NoteSession.fileName(forTitle: "v1.2 plan", replacing: "v1.2 plan.txt"), "v1.2 plan.txt")
        XCTAssertEqual(NoteSession.fileName(forTitle: "x (conflicted copy of ray 2026-11-22 10.42.07)",
                                            replacing: "x (conflicted copy of ray 2026-11-22 10.42.07).txt"),
                       "x (conflicted copy of ray 2026-11-22 10.42.07).txt")
    }

    func testTitlesThatCannotBeFileNamesAreRefusedWithAReason() {
        XCTAssertNotNil(NoteSession.titleProblem(""))
        XCTAssertNotNil(NoteSession.titleProblem("a/b"))
        XCTAssertNotNil(NoteSession.titleProblem(".hidden"))
        XCTAssertNotNil(NoteSession.titleProblem("tab\there"))
        XCTAssertNotNil(NoteSession.titleProblem(String(repeating: "é", count: 200)))
        XCTAssertNil(NoteSession.titleProblem("Challenge for Ray"))
        XCTAssertEqual(NoteSession.fileName(forTitle: "Challenge for Ray"), "Challenge for Ray.md", "new notes are Markdown")
        XCTAssertEqual(NoteSession.fileName(forTitle: "Challenge for Ray", newExtension: "txt"), "Challenge for Ray.txt")
        XCTAssertEqual(NoteSession.fileName(forTitle: "notes.md"), "notes.md")
    }

    func testDraftsAreWrittenAtomicallyAndDamagedOnesSkipped() throws {
        let store = DraftStore(directory: draftsDirectory)
        let draft = Draft(id: Draft.id(forPath: "/byteclub/Ünïcode & co.txt"), path: "/byteclub/Ünïcode & co.txt", baseRev: "0123456789",
                          title: "Ünïcode & co", body: "你好\n👨‍👩‍👧", updated: Clock.now)
        try store.save(draft)
        XCTAssertEqual(store.load(draft.id), draft)
        XCTAssertFalse(draft.id.contains("/"))
        XCTAssertEqual(Draft.id(forPath: "/byteclub/A.txt"), Draft.id(forPath: "/BYTECLUB/a.TXT"), "paths are case-insensitive")
        try Data("{ not json".utf8).write(to: draftsDirectory.appendingPathComponent("broken.json"))
        XCTAssertEqual(store.all(), [draft])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: draftsDirectory.path).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(leftovers, [])
        store.remove(draft.id)
        XCTAssertNil(store.load(draft.id))
    }
}
