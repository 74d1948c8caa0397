@testable import ByteClubApp
import Remote
import XCTest

/// The save of the open note as a machine (editing → queued/sending → saved, conflict/merge),
/// driven by hand with the sender's reports and a clock the test turns: no server, no screen.
final class NoteSaveMachineTests: XCTestCase {
    private func note(_ name: String, rev: String) -> RemoteEntry {
        RemoteEntry(kind: .file, name: name, path: "/byteclub/" + name, id: "id:" + name, rev: rev, size: 42,
                    modified: Date(timeIntervalSinceReferenceDate: 815_000_000), contentHash: "abc")
    }

    /// A save sent at once of `items` (the session and text do not matter to the machine).
    private func sentAtOnce(_ items: [String]) -> NoteSave.Sent {
        NoteSave.Sent(generation: 1, version: 1, name: "Plan.txt", text: "mine", items: items)
    }

    private func item(_ kind: OutboxItem.Kind, _ name: String, newName: String? = nil, text: String? = nil) -> OutboxItem {
        OutboxItem(kind: kind, path: "/byteclub/" + name, newPath: newName.map { "/byteclub/" + $0 }, baseRev: kind == .create ? nil : "aaaaaaaaaa",
                   title: name, text: text, draftID: "d1", queued: Date(timeIntervalSinceReferenceDate: 815_000_000))
    }

    func testASaveSentAtOnceIsSendingUntilTheServerHasItThenSaved() {
        var save = NoteSave()
        XCTAssertEqual(save.phase, .editing)
        let sent = item(.save, "Plan.txt", text: "hi")
        save.sending(sentAtOnce([sent.id]), at: 10)
        XCTAssertEqual(save.phase, .sending)
        XCTAssertEqual(save.elapsed(at: 12.5), 2.5, "the clock is the one passed in")
        let entry = note("Plan.txt", rev: "bbbbbbbbbb")
        XCTAssertEqual(save.answered(.report(OutboxReport(item: sent, result: .sent(entry))), canMerge: true, at: 13), .saved(entry, adoptName: false))
        XCTAssertEqual(save.phase, .saved)
        XCTAssertEqual(save.since, 13)
        XCTAssertEqual(save.items, [])
        XCTAssertEqual(save.answered(.report(OutboxReport(item: sent, result: .sent(entry))), canMerge: true, at: 14), .ignored,
                       "a second answer for an item already answered is no news")
    }

    /// A new title is a rename, then the save: the rename only moves the note (and its base rev
    /// when the rev after the move came from ours); the save's report ends it.
    func testARenameMovesTheNoteAndTheSaveAfterItEndsTheSave() {
        var save = NoteSave()
        let rename = item(.rename, "Plan.txt", newName: "Trip.txt"), body = item(.save, "Plan.txt", text: "hi")
        save.sending(sentAtOnce([rename.id, body.id]), at: 0)
        let moved = note("Trip.txt", rev: "cccccccccc")
        XCTAssertEqual(save.answered(.report(OutboxReport(item: rename, result: .sent(moved))), canMerge: false, at: 1), .moved(moved, movesBase: true))
        XCTAssertEqual(save.phase, .sending, "the save is still to come")
        XCTAssertEqual(save.since, 0)
        let saved = note("Trip.txt", rev: "dddddddddd")
        XCTAssertEqual(save.answered(.report(OutboxReport(item: body, result: .sent(saved))), canMerge: true, at: 2), .saved(saved, adoptName: false))

        var over = NoteSave()
        over.sending(sentAtOnce([rename.id, body.id]), at: 0)
        XCTAssertEqual(over.answered(.report(OutboxReport(item: rename, result: .merged(moved, by: "dbid:ray"))), canMerge: false, at: 1),
                       .moved(moved, movesBase: false), "moved over someone's change: the save keeps its base and merges")
    }

    func testARefusedRenameSaysWhyByItsCause() {
        let rename = item(.rename, "Plan.txt", newName: "Taken.txt"), body = item(.save, "Plan.txt", text: "hi")
        let cases: [(OutboxCause?, NoteSave.Outcome)] = [
            (.nameTaken, .nameTaken), (.gone, .deleted), (nil, .refused("Not renamed: odd")),
            (.failed(.server(status: 400, detail: "bad")), .failed(.server(status: 400, detail: "bad"))),
        ]
        for (cause, expected) in cases {
            var save = NoteSave()
            save.sending(sentAtOnce([rename.id, body.id]), at: 0)
            XCTAssertEqual(save.answered(.report(OutboxReport(item: rename, result: .refused("Not renamed: odd"), cause: cause)), canMerge: false, at: 5), expected)
            XCTAssertNotEqual(save.phase, .sending, "a refused rename ends the save")
        }
    }

    /// The sender merged ours with their change and saved it: the editor is told the text.
    /// Overlapping changes (kept as a draft) merge in the editor when it can, else the dialog.
    func testConflictsMergeWhereTheNoteCanAndAskOtherwise() {
        let body = item(.save, "Plan.txt", text: "mine"), create = item(.create, "New.md", text: "new")
        let theirs = note("Plan.txt", rev: "eeeeeeeeee")
        var save = NoteSave()
        save.sending(sentAtOnce([body.id]), at: 0)
        XCTAssertEqual(save.answered(.report(OutboxReport(item: body, result: .merged(theirs, by: "dbid:ray"), text: "both")), canMerge: true, at: 1),
                       .merged(theirs, text: "both", by: "dbid:ray"))
        XCTAssertEqual(save.phase, .saved)

        let overlap = OutboxReport(item: body, result: .conflict(draftID: "d1", reason: "changed; open it to merge"))
        save.sending(sentAtOnce([body.id]), at: 2)
        XCTAssertEqual(save.answered(.report(overlap), canMerge: true, at: 3), .merge(nil))
        XCTAssertEqual(save.phase, .merge)
        save.sending(sentAtOnce([body.id]), at: 4)
        XCTAssertEqual(save.answered(.report(overlap), canMerge: false, at: 5), .conflict)
        XCTAssertEqual(save.phase, .conflict)
        save.sending(sentAtOnce([body.id]), at: 6)
        XCTAssertEqual(save.answered(.report(OutboxReport(item: body, result: .conflict(draftID: "d1", reason: "deleted"), cause: .gone)), canMerge: true, at: 7),
                       .deleted, "a note deleted there is never merged")
        save.sending(sentAtOnce([create.id]), at: 8)
        XCTAssertEqual(save.answered(.report(OutboxReport(item: create, result: .conflict(draftID: "d1", reason: "exists"), cause: .nameTaken)), canMerge: false, at: 9),
                       .conflict, "a new note's taken name asks Overwrite / Save as copy")
    }

    /// Issue 53 §9: no answer within the runner's grace (a server that stalls says nothing for the
    /// whole idle limit): the save waits in the outbox, still being sent, and counts as queued;
    /// its late result is not this save's answer (it comes as any queued item's).
    func testNoAnswerWithinTheGraceLeavesTheSaveWaitingInTheOutbox() {
        let body = item(.save, "Plan.txt", text: "mine")
        var save = NoteSave()
        save.sending(sentAtOnce([body.id]), at: 0)
        XCTAssertEqual(save.answered(.unanswered(items: [body.id]), canMerge: true, at: 2), .waits)
        XCTAssertEqual(save.phase, .queued)
        XCTAssertEqual(save.items, [])
        XCTAssertEqual(save.elapsed(at: 2.5), 0.5)
        let late = OutboxReport(item: body, result: .sent(note("Plan.txt", rev: "bbbbbbbbbb")))
        XCTAssertEqual(save.answered(.report(late), canMerge: true, at: 9), .ignored)
        XCTAssertEqual(save.phase, .queued)
    }

    /// The server went away during the send: with the user's outbox the save waits there (and
    /// counts as saved); without, it failed and the draft keeps the text.
    func testAStopWaitsInTheOutboxOrFails() {
        let body = item(.save, "Plan.txt", text: "mine")
        var save = NoteSave()
        save.sending(sentAtOnce([body.id]), at: 0)
        XCTAssertEqual(save.answered(.stopped(.network("refused"), waits: true, items: [body.id]), canMerge: true, at: 30), .queue(.network("refused")))
        XCTAssertEqual(save.phase, .queued)
        XCTAssertEqual(save.elapsed(at: 45), 15)
        save.sending(sentAtOnce([body.id]), at: 50)
        XCTAssertEqual(save.answered(.stopped(.server(status: 500, detail: "x"), waits: false, items: [body.id]), canMerge: true, at: 51), .failed(.server(status: 500, detail: "x")))
        XCTAssertEqual(save.phase, .editing)

        var offline = NoteSave()
        offline.queued([body.id], at: 60)
        XCTAssertEqual(offline.phase, .queued, "offline, or behind older changes: it waits")
        offline.resumed(at: 61)
        XCTAssertEqual(offline.phase, .editing)
    }

    /// Each answer names the items it is about: a stop or a silence of another save's items (an
    /// earlier save's, or a merge begun since) moves nothing, and the save sent at once is kept
    /// as it was sent.
    func testAnAnswerForOtherItemsIsIgnored() {
        let body = item(.save, "Plan.txt", text: "mine")
        let other = item(.save, "Ideas.txt", text: "theirs")
        var save = NoteSave()
        save.sending(sentAtOnce([body.id]), at: 0)
        XCTAssertEqual(save.answered(.stopped(.network("refused"), waits: true, items: [other.id]), canMerge: true, at: 1), .ignored)
        XCTAssertEqual(save.answered(.unanswered(items: [other.id]), canMerge: true, at: 2), .ignored)
        XCTAssertEqual(save.phase, .sending)
        XCTAssertEqual(save.items, [body.id])
        XCTAssertEqual(save.sent, sentAtOnce([body.id]))
        // A merge begun: the send's answers are no longer awaited.
        save.merging(at: 3)
        XCTAssertEqual(save.answered(.stopped(.network("refused"), waits: true, items: [body.id]), canMerge: true, at: 4), .ignored)
        XCTAssertEqual(save.phase, .merge)
        // A save queued offline is no save sent at once.
        save.queued([body.id], at: 5)
        XCTAssertNil(save.sent)
        XCTAssertEqual(save.lastQueued, body.id, "the editor's next save follows it")
        save.follows(nil)
        XCTAssertNil(save.lastQueued)
    }
}
