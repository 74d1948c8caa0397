import ClubKit
import Foundation
import XCTest

/// A draft written while its note is live: the note's live journal holds its text, once. The
/// draft's file says which note and rev it is of, and is written only when that changes.
final class DraftInLiveJournalTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("draft-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A live note with its journal under `drafts/live`, joined over `text`.
    private func liveNote(_ text: String) -> LiveNote {
        var note = LiveNote(noteID: "id:plan", folder: folder.appendingPathComponent("live"))
        _ = note.joined(editorText: text, openedText: text)
        return note
    }

    private func draft(_ note: LiveNote, rev: String = "r1") -> Draft {
        var draft = Draft(id: Draft.id(forPath: "/byteclub/Plan.md"), path: "/byteclub/Plan.md", baseRev: rev, title: "Plan",
                          body: note.text, updated: Date(timeIntervalSince1970: 1_000))
        draft.inLiveJournal = true
        draft.liveJournal = note.journal?.path
        return draft
    }

    private func file(_ store: DraftStore, _ id: String) throws -> String {
        String(decoding: try Data(contentsOf: store.directory.appendingPathComponent(id + ".json")), as: UTF8.self)
    }

    func testTheDraftsFileKeepsNoTextAndLoadingReadsTheJournalsWithTheKeysTypedSince() throws {
        let store = DraftStore(directory: folder)
        var note = liveNote("Agenda\n")
        _ = note.edit(replacing: 6..<6, with: " for Friday")
        let first = draft(note)
        XCTAssertTrue(try store.saveIfOurs(first))
        XCTAssertFalse(try file(store, first.id).contains("Friday"), "the text is the journal's, not the draft file's")
        // Keys typed after the draft's last write (a kill -9 before the next one) are in the journal.
        _ = note.edit(replacing: 17..<17, with: ", 10:00")
        let loaded = try XCTUnwrap(store.load(first.id))
        XCTAssertEqual(loaded.body, "Agenda for Friday, 10:00\n")
        XCTAssertEqual(loaded.baseRev, "r1")
        XCTAssertEqual(store.all().map(\.body), ["Agenda for Friday, 10:00\n"])
    }

    func testTheDraftsFileIsWrittenAgainOnlyWhenWhatItSaysOfTheNoteChanges() throws {
        let store = DraftStore(directory: folder)
        var note = liveNote("Agenda\n")
        let path = store.directory.appendingPathComponent(Draft.id(forPath: "/byteclub/Plan.md") + ".json").path
        func inode() throws -> Int { try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int) }
        func saved(_ draft: Draft) throws {
            let done = expectation(description: "written")
            store.saveInBackgroundIfOurs({ draft }, text: { draft.body }, apart: { Draft.newID() }) { result in
                XCTAssertEqual(try? result.get(), draft.id)
                done.fulfill()
            }
            wait(for: [done], timeout: 10)
        }
        try saved(draft(note))
        let written = try inode()
        for word in ["one", "two", "three"] {
            _ = note.edit(replacing: 0..<0, with: word + " ")
            try saved(draft(note))
            XCTAssertEqual(try inode(), written, "a burst of keys writes no draft file: the journal has them")
        }
        XCTAssertEqual(store.load(Draft.id(forPath: "/byteclub/Plan.md"))?.body, "three two one Agenda\n")
        // A new rev (the server wrote the note) is what the draft says of it: written again.
        try saved(draft(note, rev: "r2"))
        XCTAssertNotEqual(try inode(), written)
        XCTAssertEqual(store.load(Draft.id(forPath: "/byteclub/Plan.md"))?.baseRev, "r2")
    }

    func testWithoutItsJournalTheDraftIsWrittenWithItsText() throws {
        let store = DraftStore(directory: folder)
        let note = liveNote("Agenda\n")
        var lost = draft(note)
        lost.liveJournal = folder.appendingPathComponent("live/not-there").path
        lost.body = "Agenda, typed\n"
        try store.save(lost)
        XCTAssertTrue(try file(store, lost.id).contains("Agenda, typed"), "a journal that cannot be flushed keeps no text: the file does")
        XCTAssertEqual(store.load(lost.id)?.body, "Agenda, typed\n")
    }

    /// `byteclub edit` (or a merge) takes a draft kept in a journal and changes its text: the
    /// changed text is not the journal's, so the draft's file keeps it, and it is what loads.
    func testADraftWhoseTextAnotherShellChangedIsWrittenWithItsText() throws {
        let store = DraftStore(directory: folder)
        let note = liveNote("Agenda\n")
        XCTAssertTrue(try store.saveIfOurs(draft(note)))
        var taken = try XCTUnwrap(store.take(Draft.id(forPath: "/byteclub/Plan.md")))
        XCTAssertEqual(taken.body, "Agenda\n")
        taken.body = "Agenda\nFrom the shell's editor\n"
        try store.save(taken)
        XCTAssertTrue(try file(store, taken.id).contains("From the shell's editor"))
        XCTAssertEqual(store.load(taken.id)?.body, "Agenda\nFrom the shell's editor\n")
        XCTAssertNil(store.journal(of: taken.id), "the text is the file's own now")
    }

    /// A note's own journal (`DRAFTS/local/`) belongs to the draft that names it: a draft that
    /// names a new one (a new editor's text) drops the old, a removed draft drops its own, and
    /// one no draft names is dropped once old. A live note's journal is never dropped.
    func testANotesOwnJournalGoesWithTheDraftThatNamesIt() throws {
        let store = DraftStore(directory: folder)
        func own(_ text: String) -> LiveNote { LiveNote.local(in: store.localJournals, seededWith: text) }
        func draft(_ note: LiveNote) -> Draft {
            var draft = Draft(id: "note-plan", path: "/byteclub/Plan.md", baseRev: "r1", title: "Plan", body: note.text, updated: Date())
            draft.liveJournal = note.journal?.path
            return draft
        }
        let first = own("Agenda\n"), second = own("Agenda, again\n")
        let firstPath = try XCTUnwrap(first.journal?.path), secondPath = try XCTUnwrap(second.journal?.path)
        XCTAssertTrue(try store.saveIfOurs(draft(first)))
        XCTAssertEqual(store.load("note-plan")?.body, "Agenda\n")
        XCTAssertTrue(try store.saveIfOurs(draft(second)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: firstPath), "no draft names the first journal now")
        XCTAssertEqual(store.load("note-plan")?.body, "Agenda, again\n")
        XCTAssertTrue(store.removeIfOurs("note-plan"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: secondPath), "the journal went with its draft")

        // A live note's journal named by a removed draft stays: it is the room's history here.
        let live = liveNote("Live\n")
        XCTAssertTrue(try store.saveIfOurs(self.draft(live)))
        store.remove(self.draft(live).id)
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(live.journal?.path)))

        // One no draft names (a crash before its draft's first write): dropped once a day old.
        let orphan = own("Lost?\n")
        let orphanPath = try XCTUnwrap(orphan.journal?.path)
        store.dropUnnamedJournals()
        XCTAssertTrue(FileManager.default.fileExists(atPath: orphanPath), "a young journal may be an open editor's")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 86_400)], ofItemAtPath: orphanPath)
        store.dropUnnamedJournals()
        XCTAssertFalse(FileManager.default.fileExists(atPath: orphanPath))
    }

    func testAJournalKeptInTheCacheByAnOlderByteclubMovesBesideTheDrafts() throws {
        let cache = folder.appendingPathComponent("cache"), drafts = folder.appendingPathComponent("drafts")
        var older = LiveNote(noteID: "id:plan", folder: cache.appendingPathComponent("live"))
        _ = older.joined(editorText: "kept\n", openedText: "kept\n")
        let moved = LiveJournals.folder(drafts: drafts, olderIn: cache)
        XCTAssertEqual(moved.standardizedFileURL.path, drafts.appendingPathComponent("live").standardizedFileURL.path)
        XCTAssertEqual(LiveNote(noteID: "id:plan", folder: moved).text, "kept\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache.appendingPathComponent("live").path))
    }
}
