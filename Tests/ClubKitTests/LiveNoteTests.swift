import ClubCrypt
import ClubKit
import DropboxWire
import Foundation
import LiveText
import XCTest

/// The core of a live note (the core's `LiveNote`), without a server: two or three notes
/// exchanging their updates as the relay would, in the orders a relay can give them.
final class LiveNoteTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-note-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    func testTwoMembersSeedingTheSameFileAtOnceMakeOneTextNotTwo() throws {
        var ann = LiveNote(noteID: "id:a", folder: nil)
        var ray = LiveNote(noteID: "id:a", folder: nil)
        let file = "# Minutes\n\nAgenda:\n"
        let fromAnn = ann.joined(editorText: file, openedText: file)
        let fromRay = ray.joined(editorText: file, openedText: file)
        _ = try ray.receive(try XCTUnwrap(fromAnn.send))
        _ = try ann.receive(try XCTUnwrap(fromRay.send))
        XCTAssertEqual(ann.text, file)
        XCTAssertEqual(ray.text, file)
    }

    func testWhatWasTypedBeforeTheJoinAndAFileChangedOutsideAreMergedInAndKept() throws {
        var first = LiveNote(noteID: "id:b", folder: folder)
        _ = first.joined(editorText: "one\ntwo\nthree\n", openedText: "one\ntwo\nthree\n")
        _ = first.edit(to: "one\ntwo, live\nthree\n")
        // Reopened later: the file was changed by another tool meanwhile (a line added at the
        // end), and the member typed on the first line before the join.
        var again = LiveNote(noteID: "id:b", folder: folder)
        XCTAssertEqual(again.text, "one\ntwo, live\nthree\n", "the journal kept the live edit")
        XCTAssertEqual(again.fileBase, "one\ntwo\nthree\n")
        let join = again.joined(editorText: "one, typed\ntwo\nthree\nfour\n", openedText: "one\ntwo\nthree\nfour\n")
        XCTAssertEqual(join.text, "one, typed\ntwo, live\nthree\nfour\n")
        XCTAssertEqual(again.fileBase, "one\ntwo\nthree\nfour\n")
    }

    /// Issue 68: ray leaves a live note with no draft (its text saved); ann types on and writes
    /// the file twice from the document; ray comes back over the file. Taken as a change made
    /// outside the live session (from the text ray's journal last took in), the revision was
    /// merged into a document that already held it: where ann had typed on since, her words were
    /// in the note twice. The writer's ``RevisionMark`` says where the revision came from; a file
    /// no mark names (another tool's) is still merged in.
    func testARevisionWrittenFromTheDocumentIsNotMergedInAgainByAMemberComingBack() throws {
        var ann = LiveNote(noteID: "id:m", folder: folder.appendingPathComponent("ann"))
        var ray = LiveNote(noteID: "id:m", folder: folder.appendingPathComponent("ray"))
        let file = "# Minutes\n\nAgenda:\n"
        var room = [try XCTUnwrap(ann.joined(editorText: file, openedText: file).send)]
        for update in room { _ = try ray.receive(update) }
        XCTAssertNil(ray.joined(editorText: file, openedText: file).send)
        // ray's app is closed (nothing unsaved). ann types and writes the file; she types on in
        // the line she wrote, and below it, and writes again while typing on.
        func type(_ words: String, at: Int? = nil) {
            let at = at ?? ann.text.utf16.count
            room += ann.edit(replacing: at..<at, with: words)
        }
        var revisions: [String] = []
        type("- budget\n")
        ann.writing(ann.text)
        revisions.append(ann.text)
        room.append(try XCTUnwrap(ann.written(ann.text)))
        type(" 2027", at: ann.text.utf16.count - 1)
        type("- venue\n")
        ann.writing(ann.text)
        revisions.append(ann.text)
        type("- food\n")
        room.append(try XCTUnwrap(ann.written(revisions[1]), "the text was the document's when the save took it"))
        XCTAssertNil(ann.written("a text the document never was\n"), "no mark claims it")
        XCTAssertEqual(ann.fileBase, "a text the document never was\n")
        // ray opens the note over the first revision (the file when it looked), and joins.
        var back = LiveNote(noteID: "id:m", folder: folder.appendingPathComponent("ray"))
        XCTAssertEqual(back.fileBase, file)
        for update in room { XCTAssertEqual(try back.receive(update), [], "nothing is reported before the first join") }
        XCTAssertEqual(back.marks.count, 2)
        let join = back.joined(editorText: revisions[0], openedText: revisions[0])
        XCTAssertEqual(join.text, ann.text)
        XCTAssertEqual(join.text, file + "- budget 2027\n- venue\n- food\n")
        XCTAssertNil(join.send, "ray adds nothing")
        // The marks are kept in ray's journal with the updates: a start again knows them.
        XCTAssertEqual(LiveNote(noteID: "id:m", folder: folder.appendingPathComponent("ray")).marks, back.marks)
        // A file another tool changed (no mark names it) is merged in, as before.
        var later = LiveNote(noteID: "id:m", folder: folder.appendingPathComponent("ray"))
        XCTAssertEqual(later.fileBase, revisions[0])
        for update in room { _ = try later.receive(update) }
        let outside = "From the shell.\n" + revisions[0]
        XCTAssertEqual(later.joined(editorText: outside, openedText: outside).text, "From the shell.\n" + ann.text)
    }

    func testAJoinSendsOnlyWhatTheServersLogLacksAndEditsMadeOfflineReachTheOthers() throws {
        var ann = LiveNote(noteID: "id:c", folder: nil)
        var ray = LiveNote(noteID: "id:c", folder: folder)
        var log: [Data] = []
        let seed = try XCTUnwrap(ann.joined(editorText: "notes\n", openedText: "notes\n").send)
        log.append(seed)
        for update in log { _ = try ray.receive(update) }
        XCTAssertNil(ray.joined(editorText: "notes\n", openedText: "notes\n").send, "ray has nothing the log lacks")
        // ray goes offline and types; ann types meanwhile.
        ray.disconnected()
        let offline = ray.edit(to: "notes\nray offline\n")
        XCTAssertFalse(offline.isEmpty)
        for update in ann.edit(to: "ann live\nnotes\n") { log.append(update) }
        // ray's app is killed: its journal is all that is left of its offline edit.
        var back = LiveNote(noteID: "id:c", folder: folder)
        XCTAssertEqual(back.text, "notes\nray offline\n")
        for update in log { _ = try back.receive(update) }
        let join = back.joined(editorText: "notes\nray offline\n", openedText: "notes\nray offline\n")
        let missing = try XCTUnwrap(join.send, "the offline edit goes to the server")
        _ = try ann.receive(missing)
        XCTAssertEqual(ann.text, "ann live\nnotes\nray offline\n")
        XCTAssertEqual(back.text, ann.text)
    }

    /// ann and ray in one note, ann's seed of `text` received by ray before ray joins.
    static func joined(noteID: String, on text: String) throws -> (LiveNote, LiveNote) {
        var ann = LiveNote(noteID: noteID, folder: nil)
        var ray = LiveNote(noteID: noteID, folder: nil)
        let seed = try XCTUnwrap(ann.joined(editorText: text, openedText: text).send)
        _ = try ray.receive(seed)
        _ = ray.joined(editorText: text, openedText: text)
        return (ann, ray)
    }

    func testAnInsertIsPlacedAtTheCursorWhenTheTextAloneCannotTell() throws {
        var (ann, ray) = try Self.joined(noteID: "id:d", on: "x\n")
        // ray types "r", then ann's "ann" lands after it; ray's "a" is typed after the "r".
        for update in ray.edit(to: "x\nr", cursor: 3) { _ = try ann.receive(update) }
        for update in ann.edit(to: "x\nrann", cursor: 6) { _ = try ray.receive(update) }
        let typed = ray.edit(to: "x\nraann", cursor: 4)
        // ann, meanwhile, types at the end: the two orders must meet on ray's words.
        for update in ann.edit(to: "x\nrann!", cursor: 7) { _ = try ray.receive(update) }
        for update in typed { _ = try ann.receive(update) }
        XCTAssertEqual(ann.text, ray.text)
        XCTAssertTrue(ann.text.hasPrefix("x\nra"), "ray's \"a\" follows ray's \"r\": \(ann.text)")
    }

    /// The editor's own record of a key (`edit(replacing:with:)`) goes in as it was made: ray's
    /// "a" typed between his "r" and ann's "ann" stays his, however the text reads.
    func testAnEditAsTheEditorMadeItGoesInWhereItWasMade() throws {
        var (ann, ray) = try Self.joined(noteID: "id:d2", on: "x\n")
        for update in ray.edit(replacing: 2..<2, with: "r") { _ = try ann.receive(update) }
        for update in ann.edit(replacing: 3..<3, with: "ann") { _ = try ray.receive(update) }
        let typed = ray.edit(replacing: 3..<3, with: "a", continuing: true)
        for update in ann.edit(replacing: 6..<6, with: "!") { _ = try ray.receive(update) }
        for update in typed { _ = try ann.receive(update) }
        XCTAssertEqual(ann.text, ray.text)
        XCTAssertEqual(ann.text, "x\nraann!")
        // One undo takes ray's run ("r", "a") back, and nothing of ann's.
        XCTAssertEqual(ray.undo(redo: false).map { _ in ray.text }, "x\nann!")
        // A whole-text difference never cuts an emoji in half (😀 and 😁 share a first unit).
        XCTAssertEqual(LiveNote.difference(from: "a😀", to: "a😁").removed, 1..<3)
    }

    /// A reconnection: the room's stored log comes in before the join, and the editor already
    /// shows the document, so what each update changed is reported as it comes. Unreported (as
    /// before), a key typed meanwhile was placed by offsets of a text that lacked the others'
    /// words (the live histories found words glued together).
    func testAReconnectionsStoredLogIsReportedAsItComesIn() throws {
        var (ann, ray) = try Self.joined(noteID: "id:r1", on: "x\n")
        ray.disconnected()
        let typed = ann.edit(replacing: 2..<2, with: "ann ")
        var reported: [LiveTextChange] = []
        for update in typed { reported += try ray.receive(update) }
        XCTAssertEqual(reported, [.insert("ann ", at: 2)])
        XCTAssertFalse(ray.isJoined)
        // Ray types at the end of the text he is shown, which has ann's words: after them.
        for update in ray.edit(replacing: 6..<6, with: "ray") { _ = try ann.receive(update) }
        XCTAssertEqual(ann.text, "x\nann ray")
        XCTAssertEqual(ray.text, ann.text)
    }

    func testUndoTakesBackOnlyThisMembersOwnEdit() throws {
        var (ann, ray) = try Self.joined(noteID: "id:e", on: "a\n")
        for update in ann.edit(to: "a\nann\n") { _ = try ray.receive(update) }
        for update in ray.edit(to: "a\nann\nray\n") { _ = try ann.receive(update) }
        let undone = try XCTUnwrap(ann.undo(redo: false))
        _ = try ray.receive(undone.update)
        XCTAssertEqual(ann.text, "a\nray\n")
        XCTAssertEqual(ray.text, "a\nray\n")
    }

    /// Issue 68 (8): keys that continue the editor's undo step join the document's, so one undo
    /// takes back the typed word, not its last character; a key that begins a step does not.
    func testUndoTakesBackATypedRunAsOneStep() throws {
        var (ann, ray) = try Self.joined(noteID: "id:f", on: "a\n")
        var text = "a\n"
        for (index, letter) in "hello".enumerated() {
            text.append(letter)
            for update in ann.edit(to: text, cursor: text.utf16.count, continuing: index > 0) { _ = try ray.receive(update) }
        }
        text += " "
        for update in ann.edit(to: text, cursor: text.utf16.count, continuing: true) { _ = try ray.receive(update) }
        text += "w"
        for update in ann.edit(to: text, cursor: text.utf16.count, continuing: false) { _ = try ray.receive(update) }
        let word = try XCTUnwrap(ann.undo(redo: false))
        _ = try ray.receive(word.update)
        XCTAssertEqual(ann.text, "a\nhello ")
        let run = try XCTUnwrap(ann.undo(redo: false))
        _ = try ray.receive(run.update)
        XCTAssertEqual(ann.text, "a\n", "\"hello \" in one step")
        XCTAssertEqual(ray.text, ann.text)
    }

    func testAJournalCutShortReadsItsWholeRecords() {
        var journal = Data()
        for record in [Data([1, 2, 3]), Data(), Data([9])] {
            journal.append(contentsOf: [0, 0, 0, UInt8(record.count)])
            journal.append(record)
        }
        XCTAssertEqual(LiveNote.records(of: journal), [Data([1, 2, 3]), Data(), Data([9])])
        XCTAssertEqual(LiveNote.records(of: journal.dropLast()), [Data([1, 2, 3]), Data()])
        XCTAssertEqual(LiveNote.records(of: Data([0, 0, 0xFF, 0xFF, 1])), [])
    }

    /// An encrypted club's cursor is an age file signed by its member, sent in base64: it fits
    /// the channel's cap on a cursor (and on a control message) with room to spare.
    func testASealedCursorFitsTheLiveChannelsCaps() throws {
        let me = MemberKeys(identity: X25519Identity())
        let club = X25519Identity()
        let path = "live/id:" + String(repeating: "a", count: 22) + "/cursor"
        let sealed = try ClubSeal.seal(Data("1234567".utf8), path: path, version: ClubSeal.nextVersion(after: nil), to: [club.recipient], by: me)
        let at = sealed.base64EncodedString()
        print("a sealed cursor: \(at.utf8.count) bytes in base64")
        XCTAssertLessThanOrEqual(at.utf8.count, LiveControl.maxCursorBytes * 3 / 4, "\(at.utf8.count) bytes")
        XCTAssertLessThanOrEqual(LiveControl.cursor(at: at).json.utf8.count, LiveControl.maxBytes)
        XCTAssertEqual(try Age.decrypt(sealed, identities: [club]).plaintext, Data("1234567".utf8))
    }
}
