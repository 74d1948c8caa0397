@testable import ByteClubApp
import Remote
import XCTest

/// A save's answer and where it leads, as a value: no server, no screen.
final class NoteSaveStateMachineTests: XCTestCase {
    private func note(_ name: String, rev: String = "0123456789abcdef") -> RemoteEntry {
        RemoteEntry(kind: .file, name: name, path: "/byteclub/" + name, id: "id:" + name, rev: rev, size: 42,
                    modified: Date(timeIntervalSinceReferenceDate: 815_000_000), contentHash: "abc")
    }

    private func outcome(_ reply: NoteSave.Reply, canMerge: Bool = true, canQueue: Bool = true, adoptName: Bool = false) -> NoteSave.Outcome {
        NoteSave.outcome(of: reply, canMerge: canMerge, canQueue: canQueue, adoptName: adoptName)
    }

    func testASavedNoteMovesItsBaselineAndACopyTakesTheServersName() {
        let entry = note("Plan (copy).txt")
        XCTAssertEqual(outcome(.init(result: .success(entry))), .saved(entry, adoptName: false))
        XCTAssertEqual(outcome(.init(result: .success(entry)), adoptName: true), .saved(entry, adoptName: true))
    }

    func testAConflictMergesWhenItCanAndAsksOtherwise() {
        let conflict = NoteSave.Reply(result: .failure(.conflict("/byteclub/Plan.txt")))
        XCTAssertEqual(outcome(conflict), .merge(nil))
        XCTAssertEqual(outcome(conflict, canMerge: false), .conflict, "a new note, or a changed title, cannot merge")
        var moved = conflict
        moved.moved = note("New title.txt")
        XCTAssertEqual(outcome(moved), .conflict, "after a rename went through, the upload's conflict is asked about")
    }

    func testATakenNameIsSaidBeforeAnythingElse() {
        let reply = NoteSave.Reply(result: .failure(.conflict("/byteclub/Taken.txt")), nameTaken: true)
        XCTAssertEqual(outcome(reply), .nameTaken)
    }

    /// A note gone from the server is never "changed on the server": the user chooses to save
    /// it again as a new note or to discard it. Made new, it keeps its title and extension and
    /// updates no rev.
    func testANoteDeletedOnTheServerAsksToSaveItAgainNeverToOverwrite() {
        let gone = NoteSave.Reply(result: .failure(.notFound("/byteclub/Plan.txt")), deleted: true)
        XCTAssertEqual(outcome(gone), .deleted)
        XCTAssertEqual(outcome(gone, canMerge: false, canQueue: false), .deleted)

        var session = NoteSession(loading: note("Plan.txt"))
        session.stage = .open
        session.remoteChange = RemoteNoteChange(entry: note("Plan.txt", rev: "bbbbbbbbbb"), who: "ray", when: Date())
        session.markDeleted(by: "ann")
        XCTAssertEqual(session.remoteDeletion, RemoteNoteDeletion(who: "ann"))
        XCTAssertNil(session.remoteChange, "nothing is left to merge")
        XCTAssertEqual(session.banner, "Deleted by ann · Ctrl-S saves it again as a new note · Esc closes")
        session.becomeNew()
        XCTAssertNil(session.entry)
        XCTAssertNil(session.baseRev)
        XCTAssertNil(session.remoteDeletion)
        XCTAssertNil(session.banner)
        XCTAssertEqual(session.fileName, "Plan.txt", "a .txt note stays .txt")
    }

    /// Issue 53 §2: a note in a folder, deleted by another member and saved again, goes back to
    /// its own folder (made new, it was saved in the club folder), and its draft keeps that
    /// folder for a restart.
    func testANoteMadeNewAfterADeletionIsSavedAgainInItsOwnFolder() {
        let entry = RemoteEntry(kind: .file, name: "Plan.md", path: "/byteclub/Trips/Plan.md", id: "id:plan", rev: "0123456789abcdef",
                                size: 42, modified: Date(timeIntervalSinceReferenceDate: 815_000_000), contentHash: "abc")
        var session = NoteSession(loading: entry)
        session.stage = .open
        session.markDeleted(by: "ann")
        session.becomeNew()
        XCTAssertNil(session.entry)
        XCTAssertEqual(session.fileName, "Plan.md")
        XCTAssertEqual(session.saveFolder(root: "/byteclub"), "/byteclub/Trips", "saved again where it was")
        XCTAssertEqual(session.draft(at: Date(timeIntervalSinceReferenceDate: 815_000_100)).folder, "/byteclub/Trips")

        var atTheTop = NoteSession(loading: note("Plan.txt"))
        atTheTop.stage = .open
        atTheTop.becomeNew()
        XCTAssertEqual(atTheTop.saveFolder(root: "/byteclub"), "/byteclub")
    }

    func testAnUnreachableServerQueuesTheTextOnlyWithAnOutboxAndNeverACopy() {
        let gone = NoteSave.Reply(result: .failure(.network("Connection refused")))
        XCTAssertEqual(outcome(gone), .queue(.network("Connection refused")))
        XCTAssertEqual(outcome(gone, canQueue: false), .failed(.network("Connection refused")))
        XCTAssertEqual(outcome(gone, adoptName: true), .failed(.network("Connection refused")), "a copy's name is the server's to give")
        XCTAssertEqual(outcome(.init(result: .failure(.unauthorized(.memberToken)))), .failed(.unauthorized(.memberToken)))
    }

    func testTheAnswerLeavesTheSessionEditingAtTheNameARenameGaveIt() {
        var saving = NoteSession(loading: note("Plan.txt", rev: "aaaaaaaaaa"))
        saving.stage = .open
        saving.save.writing(at: 1)
        XCTAssertTrue(saving.isSaving)
        XCTAssertFalse(saving.isEditing)
        let renamed = note("Trip.txt", rev: "bbbbbbbbbb")
        let after = NoteSave.answered(saving, by: .init(moved: renamed, result: .failure(.conflict("/byteclub/Trip.txt"))), at: 2)
        XCTAssertTrue(after.isEditing)
        XCTAssertEqual(after.save.phase, .editing)
        XCTAssertEqual(after.entry?.name, "Trip.txt")
        XCTAssertEqual(after.baseRev, "bbbbbbbbbb")
        let unmoved = NoteSave.answered(saving, by: .init(result: .failure(.network("x"))), at: 2)
        XCTAssertEqual(unmoved.entry?.name, "Plan.txt")
    }
}
