import Foundation
import TestSupport
import XCTest

@testable import LiveText

/// Undo takes back one's own edits only: what I typed goes, what I deleted comes back, and
/// nothing another member wrote is touched.
final class UndoTests: XCTestCase {
    func testUndoAndRedoWalkBackAndForthThroughMyEdits() {
        var document = LiveDocument(clientID: 1)
        var texts = [document.text]
        document.insert("hello", at: 0)
        texts.append(document.text)
        document.insert(" world", at: 5)
        texts.append(document.text)
        document.delete(0..<6)
        texts.append(document.text)
        document.insert("😀", at: 5)
        texts.append(document.text)
        for expected in texts.reversed().dropFirst() {
            XCTAssertNotNil(document.undo())
            XCTAssertEqual(document.text, expected)
        }
        XCTAssertNil(document.undo())
        XCTAssertFalse(document.canUndo)
        for expected in texts.dropFirst() {
            XCTAssertNotNil(document.redo())
            XCTAssertEqual(document.text, expected)
        }
        XCTAssertNil(document.redo())
    }

    /// Issue 68 (8): steps joined as the editor joins a typed run undo together, and a
    /// peer's text typed in between stays; an insert and a delete never join.
    func testJoinedStepsUndoAsOneRunAndAPeersTextStays() throws {
        var document = LiveDocument(clientID: 1)
        var peer = LiveDocument(clientID: 2)
        try peer.apply(update: document.insert("x ", at: 0))
        for (offset, letter) in "word".enumerated() {
            let update = document.insert(String(letter), at: 2 + offset)
            if offset > 0 { document.joinLastUndoSteps(1) }
            try peer.apply(update: update)
        }
        try document.apply(update: peer.insert("!", at: 6))
        XCTAssertEqual(document.text, "x word!")
        XCTAssertNotNil(document.undo())
        XCTAssertEqual(document.text, "x !", "the whole run in one step, the peer's text kept")
        XCTAssertNotNil(document.undo())
        XCTAssertEqual(document.text, "!")
        XCTAssertNotNil(document.redo())
        XCTAssertNotNil(document.redo())
        XCTAssertEqual(document.text, "x word!")

        // A delete after an insert stays its own step: undone together they would bring back the deleted text.
        var other = LiveDocument(clientID: 3)
        other.insert("ab", at: 0)
        other.delete(1..<2)
        other.joinLastUndoSteps(1)
        XCTAssertNotNil(other.undo())
        XCTAssertEqual(other.text, "ab")
    }

    /// Issue 68: what a member typed in a document of their own before the note went live
    /// went into the shared one as its operations; their undo there takes it back, a run a
    /// step, after their own edits in the shared document and never touching a peer's text.
    /// Peers see each undo as an update like any other.
    func testStepsTakenFromTheOwnDocumentUndoInTheSharedOne() throws {
        var shared = LiveDocument(clientID: 1)
        var peer = LiveDocument(clientID: 2)
        let seed = peer.insert("base\n", at: 0)
        try shared.apply(update: seed)
        // Alone: the own document, from the same start, typed in by runs.
        var own = LiveDocument(clientID: 9)
        try own.apply(update: seed)
        let start = own.state
        for (offset, letter) in "one ".enumerated() {
            own.insert(String(letter), at: 5 + offset)
            if offset > 0 { own.joinLastUndoSteps(1) }
        }
        own.delete(0..<1)
        own.insert("two", at: 8)
        XCTAssertEqual(own.text, "ase\none two")
        // The join: its operations go in, and its steps with them.
        let typed = own.encodeStateAsUpdate(since: start)
        try shared.apply(update: typed)
        try peer.apply(update: typed)
        shared.takeUndoSteps(of: own)
        // A peer's edit and one of the member's own in the shared document, after the join.
        try shared.apply(update: peer.insert("!", at: peer.utf16Count))
        try peer.apply(update: shared.insert("3", at: shared.utf16Count))
        XCTAssertEqual(shared.text, "ase\none two!3")

        var texts: [String] = []
        while let undone = shared.undo() {
            try peer.apply(update: undone.update)
            XCTAssertEqual(peer.text, shared.text, "a peer sees each undo")
            texts.append(shared.text)
        }
        XCTAssertEqual(texts, ["ase\none two!", "ase\none !", "base\none !", "base\n!"],
                       "the shared document's edit first, then what was typed alone, a run a step; the peer's ! stays")
        while let redone = shared.redo() { try peer.apply(update: redone.update) }
        XCTAssertEqual(shared.text, "ase\none two!3")
        XCTAssertEqual(peer.text, shared.text)
    }

    func testANewEditEmptiesRedo() {
        var document = LiveDocument(clientID: 1)
        document.insert("a", at: 0)
        document.undo()
        XCTAssertTrue(document.canRedo)
        document.insert("b", at: 0)
        XCTAssertFalse(document.canRedo)
        XCTAssertNil(document.redo())
        XCTAssertEqual(document.text, "b")
    }

    func testUndoLeavesAnotherMembersTextAndTheirEditsInsideMine() throws {
        var ann = LiveDocument(clientID: 1)
        var bob = LiveDocument(clientID: 2)
        try bob.apply(update: ann.insert("minutes: ", at: 0))
        try ann.apply(update: bob.insert("bob was here. ", at: 9))
        try bob.apply(update: ann.insert("ann too.", at: 23))
        // Bob types inside Ann's last insert.
        try ann.apply(update: bob.insert("[bob]", at: 26))
        XCTAssertEqual(ann.text, "minutes: bob was here. ann[bob] too.")
        try bob.apply(update: ann.undo()!.update)
        XCTAssertEqual(ann.text, "minutes: bob was here. [bob]")
        XCTAssertEqual(bob.text, ann.text)
        try bob.apply(update: ann.undo()!.update)
        XCTAssertEqual(ann.text, "bob was here. [bob]")
        XCTAssertNil(ann.undo())
        XCTAssertEqual(bob.text, ann.text)
    }

    /// Text I deleted, another member's included, comes back where it was, even when the
    /// others have typed around it since.
    func testUndoingADeleteBringsTheTextBackInPlace() throws {
        var ann = LiveDocument(clientID: 1)
        var bob = LiveDocument(clientID: 2)
        try ann.apply(update: bob.insert("one two three", at: 0))
        try bob.apply(update: ann.delete(3..<7))
        XCTAssertEqual(bob.text, "one three")
        try ann.apply(update: bob.insert("!", at: 9))
        try ann.apply(update: bob.insert(">", at: 0))
        try bob.apply(update: ann.undo()!.update)
        XCTAssertEqual(ann.text, ">one two three!")
        XCTAssertEqual(bob.text, ann.text)
        // Bob's own undo takes back only his: the ">" he typed last.
        try ann.apply(update: bob.undo()!.update)
        XCTAssertEqual(ann.text, "one two three!")
        XCTAssertEqual(bob.text, ann.text)
    }

    /// What a member deleted of mine stays deleted when I undo my insert, and my redo does not
    /// bring it back.
    func testUndoOfTextAnotherMemberDeletedChangesNothingOfTheirs() throws {
        var ann = LiveDocument(clientID: 1)
        var bob = LiveDocument(clientID: 2)
        try bob.apply(update: ann.insert("abcdef", at: 0))
        try ann.apply(update: bob.delete(1..<3))
        XCTAssertEqual(ann.text, "adef")
        try bob.apply(update: ann.undo()!.update)
        XCTAssertEqual(ann.text, "")
        try bob.apply(update: ann.redo()!.update)
        XCTAssertEqual(ann.text, "adef")
        XCTAssertEqual(bob.text, "adef")
    }

    func testUndoGoesBackAsFarAsItsLimit() {
        var document = LiveDocument(clientID: 1)
        document.undoLimit = 10
        for offset in 0..<1_020 { document.insert("a", at: offset) }
        var undone = 0
        while document.undo() != nil { undone += 1 }
        XCTAssertGreaterThanOrEqual(undone, 10)
        XCTAssertLessThanOrEqual(undone, 1_010)
        XCTAssertEqual(document.utf16Count, 1_020 - undone)
    }

    /// A step that peers have undone already is passed over: the undo undoes the one before.
    func testAStepPeersUndidAlreadyIsPassedOver() throws {
        var ann = LiveDocument(clientID: 1)
        var bob = LiveDocument(clientID: 2)
        try bob.apply(update: ann.insert("keep ", at: 0))
        try bob.apply(update: ann.insert("gone", at: 5))
        try ann.apply(update: bob.delete(5..<9))
        XCTAssertEqual(ann.text, "keep ")
        let undone = try XCTUnwrap(ann.undo())
        XCTAssertEqual(undone.changes, [.delete(0..<5)])
        XCTAssertEqual(ann.text, "")
        XCTAssertFalse(ann.canUndo)
    }

    /// One member's edits at random: undoing them all walks back through every text it had, to
    /// the empty note, and redoing them all walks forward again.
    func testUndoingEveryEditWalksBackThroughEveryText() {
        for seed in EditHistory.seeds(count: 50) {
            var random = SeededGenerator(seed: seed)
            var document = LiveDocument(clientID: 1)
            var texts = [""]
            for _ in 0..<40 {
                let boundaries = EditHistory.boundaries(of: document.text)
                if boundaries.count > 1 && Bool.random(using: &random) {
                    let start = Int.random(in: 0..<boundaries.count - 1, using: &random)
                    document.delete(boundaries[start]..<boundaries[min(boundaries.count - 1, start + Int.random(in: 1...6, using: &random))])
                } else {
                    document.insert(EditHistory.alphabet.randomElement(using: &random)! + "z", at: boundaries.randomElement(using: &random)!)
                }
                texts.append(document.text)
            }
            for expected in texts.reversed().dropFirst() {
                document.undo()
                XCTAssertEqual(document.text, expected, "seed \(seed)")
            }
            for expected in texts.dropFirst() {
                document.redo()
                XCTAssertEqual(document.text, expected, "seed \(seed)")
            }
        }
    }

    /// Over generated histories, an undo or redo never deletes another member's text: its
    /// update's deletes are all of the member's own clocks.
    func testUndoDeletesOnlyMyOwnItems() throws {
        for seed in EditHistory.seeds(count: 40) {
            let run = EditHistory.run(seed: seed, stepCount: 60)
            for var replica in run.replicas {
                var updates: [Data] = []
                while let undone = replica.undo() { updates.append(undone.update) }
                while let redone = replica.redo() { updates.append(redone.update) }
                for update in updates {
                    let decoded = try DecodedUpdate(Array(update), root: "note")
                    XCTAssertTrue(decoded.deletes.allSatisfy { $0.client == replica.clientID }, "seed \(seed)")
                    XCTAssertTrue(decoded.blocks.keys.allSatisfy { $0 == replica.clientID }, "seed \(seed)")
                }
            }
        }
    }
}
