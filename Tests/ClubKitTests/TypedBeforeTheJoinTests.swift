import ClubKit
import Foundation
import LiveText
import XCTest

/// Issue 68: a note edited alone has its own document (``LiveNote/local(in:seededWith:over:from:)``),
/// started from the live room's document when that is the text it was opened over, else from the
/// seed every member makes of that text. When the note goes live, what was typed before the join
/// goes into the room as the operations it was. The text
/// merge it replaces made each member's typing one replacement, from its first change to its
/// last: two members who had typed alone at both ends of each other's words each put the text
/// between their edits in again, and the note held it twice.
final class TypedBeforeTheJoinTests: XCTestCase {
    var folder: URL!
    let file = "one two three four five six\n"

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("typed-before-join-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The room as the club server starts it: the seed of the file, before anyone joins.
    func room(of text: String) throws -> [Data] {
        var server = LiveNote(noteID: "id:room", folder: nil)
        return [try XCTUnwrap(server.joined(editorText: text, openedText: text).send)]
    }

    /// A member's own document over `file` (from `room`'s document when given), with `edits`
    /// typed in order (UTF-16 offsets of the text as each edit finds it), and the editor's text
    /// after them.
    func typedAlone(_ member: String, _ edits: [(Int, String)], room: Data? = nil) -> (LiveNote, String) {
        var own = LiveNote.local(in: folder.appendingPathComponent(member), seededWith: file, over: file, from: room)
        for (at, text) in edits { _ = own.edit(replacing: at..<at, with: text) }
        return (own, own.text)
    }

    /// Every word of `words` once in `text`.
    func assertOnce(_ words: [String], in text: String, file: StaticString = #filePath, line: UInt = #line) {
        let found = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        for word in words {
            XCTAssertEqual(found.filter { $0 == word }.count, 1, "\(word) in \(text.debugDescription)", file: file, line: line)
        }
    }

    func testTwoMembersWhoEachTypedAloneBeforeOneJoinKeepEveryWordOnce() throws {
        var log = try room(of: file)
        // ann typed at both ends of the line, ray in its middle: each text merge's replacement
        // would have run from "one" to "six" and put "two … five" in again.
        let (annOwn, annText) = typedAlone("ann", [(27, " ann2"), (3, " ann1")])
        let (rayOwn, rayText) = typedAlone("ray", [(13, " ray1"), (23, " ray2")])
        XCTAssertEqual(annText, "one ann1 two three four five six ann2\n")
        XCTAssertEqual(rayText, "one two three ray1 four ray2 five six\n")

        var ann = LiveNote(noteID: "id:room", folder: folder.appendingPathComponent("ann-live"))
        var ray = LiveNote(noteID: "id:room", folder: folder.appendingPathComponent("ray-live"))
        for update in log { _ = try ann.receive(update) }
        for update in log { _ = try ray.receive(update) }
        // Both joins at once: neither has the other's typing yet.
        let annJoin = ann.joined(editorText: annText, openedText: file, mergesFile: false, local: annOwn)
        let rayJoin = ray.joined(editorText: rayText, openedText: file, mergesFile: false, local: rayOwn)
        XCTAssertEqual(annJoin.text, annText, "ann's editor keeps her text")
        XCTAssertEqual(rayJoin.text, rayText)
        let fromAnn = try XCTUnwrap(annJoin.send), fromRay = try XCTUnwrap(rayJoin.send)
        log += [fromAnn, fromRay]
        _ = try ann.receive(fromRay)
        _ = try ray.receive(fromAnn)

        XCTAssertEqual(ann.text, "one ann1 two three ray1 four ray2 five six ann2\n")
        XCTAssertEqual(ray.text, ann.text)
        assertOnce(["one", "two", "three", "four", "five", "six", "ann1", "ann2", "ray1", "ray2"], in: ann.text)
        // A member who joins later from the room's log alone reads the same.
        var cy = LiveNote(noteID: "id:room", folder: nil)
        for update in log { _ = try cy.receive(update) }
        XCTAssertEqual(cy.joined(editorText: file, openedText: file).text, ann.text)
    }

    /// What a member typed alone is still theirs to undo once the note is live: Ctrl-Z after
    /// the join takes back their typed runs, newest first, and another member's word stays.
    /// Before, the join's operations came in under the own document's client and undo said
    /// "Nothing of yours to undo".
    func testWhatWasTypedAloneIsUndoneAfterTheJoinAndTheOthersWordStays() throws {
        let log = try room(of: file)
        var annOwn = LiveNote.local(in: folder.appendingPathComponent("ann"), seededWith: file, over: file)
        for (offset, letter) in " ann1".enumerated() {
            _ = annOwn.edit(replacing: (3 + offset)..<(3 + offset), with: String(letter), continuing: offset > 0)
        }
        _ = annOwn.edit(replacing: 32..<32, with: " ann2")
        let annText = annOwn.text
        XCTAssertEqual(annText, "one ann1 two three four five six ann2\n")

        var ann = LiveNote(noteID: "id:room", folder: folder.appendingPathComponent("ann-live"))
        var ray = LiveNote(noteID: "id:room", folder: nil)
        for update in log {
            _ = try ann.receive(update)
            _ = try ray.receive(update)
        }
        let join = ann.joined(editorText: annText, openedText: file, mergesFile: false, local: annOwn)
        XCTAssertFalse(join.mergedTyping)
        _ = ray.joined(editorText: file, openedText: file)
        _ = try ray.receive(try XCTUnwrap(join.send))
        for update in ray.edit(replacing: 18..<18, with: " ray1") { _ = try ann.receive(update) }
        XCTAssertEqual(ann.text, "one ann1 two three ray1 four five six ann2\n")

        let first = try XCTUnwrap(ann.undo(redo: false), "ann's last run typed alone")
        _ = try ray.receive(first.update)
        XCTAssertEqual(ann.text, "one ann1 two three ray1 four five six\n")
        let second = try XCTUnwrap(ann.undo(redo: false), "her first run, typed a key at a time, in one step")
        _ = try ray.receive(second.update)
        XCTAssertEqual(ann.text, "one two three ray1 four five six\n")
        XCTAssertNil(ann.undo(redo: false), "nothing of ray's is ann's to undo")
        XCTAssertEqual(ray.text, ann.text)
    }

    func testAMembersOwnDocumentReopenedFromItsJournalAfterAKillStillJoinsAsOperations() throws {
        let log = try room(of: file)
        let (annOwn, annText) = typedAlone("ann", [(27, " ann2"), (3, " ann1")])
        let (rayOwn, rayText) = typedAlone("ray", [(13, " ray1")])
        // ann's app is killed: her draft names her document's journal, which is all that is left.
        let journal = try XCTUnwrap(annOwn.journal)
        let reopened = LiveNote(noteID: journal.lastPathComponent, folder: journal.deletingLastPathComponent())
        XCTAssertEqual(reopened.text, annText)
        XCTAssertTrue(reopened.isStarted(over: file), "the journal's first update is the file's seed")
        XCTAssertFalse(reopened.isStarted(over: file + "more\n"))

        var ann = LiveNote(noteID: "id:room", folder: nil), ray = LiveNote(noteID: "id:room", folder: nil)
        for update in log {
            _ = try ann.receive(update)
            _ = try ray.receive(update)
        }
        XCTAssertEqual(rayOwn.text, rayText)
        try joinAtOnce(&ann, reopened, &ray, rayOwn)
        XCTAssertEqual(ann.text, "one ann1 two three ray1 four five six ann2\n")
        XCTAssertEqual(ray.text, ann.text)
    }

    /// The room started from another text (the file changed after the note was opened): the own
    /// document's operations build on a seed the room lacks, so the typing is merged as text, as
    /// before, and nothing is doubled by a seed of its own.
    func testARoomStartedFromAnotherTextTakesTheTypingAsAMergeOfTexts() throws {
        let opened = "head\nbody\n"
        let log = try room(of: "zero\nhead\nbody\n")
        var own = LiveNote.local(in: folder, seededWith: opened)
        _ = own.edit(replacing: 9..<9, with: " ann")
        var ann = LiveNote(noteID: "id:room", folder: nil)
        for update in log { _ = try ann.receive(update) }
        XCTAssertFalse(ann.document.state.covers(try XCTUnwrap(own.start).state))
        let join = ann.joined(editorText: own.text, openedText: opened, mergesFile: true, local: own)
        XCTAssertEqual(join.text, "zero\nhead\nbody ann\n")
    }

    /// An own document that fell behind its editor (its seed still being made, or an edit it
    /// missed) is not taken: the editor's text is, merged as text.
    func testAnOwnDocumentThatIsNotTheEditorsTextIsNotTaken() throws {
        let log = try room(of: file)
        let (annOwn, _) = typedAlone("ann", [(27, " ann2")])
        var ann = LiveNote(noteID: "id:room", folder: nil)
        for update in log { _ = try ann.receive(update) }
        let editor = "one two three four five six ann2 ann3\n"
        XCTAssertEqual(ann.joined(editorText: editor, openedText: file, mergesFile: false, local: annOwn).text, editor)
    }

    /// A note's own document opened over the file with a restored draft's text: seeded from the
    /// file, the draft's words one edit on it, so it still joins as operations.
    func testAnOwnDocumentOverADraftStartsFromTheFilesSeed() throws {
        let draft = "one two three four five six\nfrom the draft\n"
        let own = LiveNote.local(in: folder, seededWith: draft, over: file)
        XCTAssertEqual(own.text, draft)
        XCTAssertTrue(own.isStarted(over: file))
        let log = try room(of: file)
        var ann = LiveNote(noteID: "id:room", folder: nil)
        for update in log { _ = try ann.receive(update) }
        let join = ann.joined(editorText: draft, openedText: file, mergesFile: false, local: own)
        XCTAssertEqual(join.text, draft)
        var ray = LiveNote(noteID: "id:room", folder: nil)
        for update in log + [try XCTUnwrap(join.send)] { _ = try ray.receive(update) }
        XCTAssertEqual(ray.joined(editorText: file, openedText: file).text, draft)
    }

    /// The room began long before, from another text, and was written since to the file the
    /// members opened: their own documents start from the room's document (its log in while each
    /// was alone in the note), so their typing still joins as operations, each word once.
    func testOwnDocumentsForkedFromALongLivedRoomJoinAsOperations() throws {
        var server = LiveNote(noteID: "id:room", folder: nil)
        let older = "one two\n"
        var log = [try XCTUnwrap(server.joined(editorText: older, openedText: older).send)]
        log += server.edit(to: file)
        // Alone in the note, each member has the room's log before anyone joins.
        var ann = LiveNote(noteID: "id:room", folder: nil), ray = LiveNote(noteID: "id:room", folder: nil)
        for update in log {
            _ = try ann.receive(update)
            _ = try ray.receive(update)
        }
        XCTAssertEqual(ann.text, file)
        let fork = ann.document.encodeStateAsUpdate()
        let (annOwn, annText) = typedAlone("ann", [(27, " ann2"), (3, " ann1")], room: fork)
        let (rayOwn, rayText) = typedAlone("ray", [(13, " ray1"), (23, " ray2")], room: ray.document.encodeStateAsUpdate())
        XCTAssertTrue(annOwn.isStarted(over: file))
        // Seeded from the file's text instead, the typing could only be merged as text.
        XCTAssertFalse(ray.document.state.covers(try XCTUnwrap(LiveNote.local(in: folder, seededWith: file).start).state))

        XCTAssertEqual([annOwn.text, rayOwn.text], [annText, rayText])
        try joinAtOnce(&ann, annOwn, &ray, rayOwn)
        XCTAssertEqual(ann.text, "one ann1 two three ray1 four ray2 five six ann2\n")
        XCTAssertEqual(ray.text, ann.text)
    }

    /// ann and ray join at once, each with what it typed alone in its own document (over `file`),
    /// then each receives the other's join.
    func joinAtOnce(_ ann: inout LiveNote, _ annOwn: LiveNote, _ ray: inout LiveNote, _ rayOwn: LiveNote,
                    file: StaticString = #filePath, line: UInt = #line) throws {
        let fromAnn = try XCTUnwrap(ann.joined(editorText: annOwn.text, openedText: self.file, mergesFile: false, local: annOwn).send, file: file, line: line)
        let fromRay = try XCTUnwrap(ray.joined(editorText: rayOwn.text, openedText: self.file, mergesFile: false, local: rayOwn).send, file: file, line: line)
        _ = try ann.receive(fromRay)
        _ = try ray.receive(fromAnn)
    }
}
