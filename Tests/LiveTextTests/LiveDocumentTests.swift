import Foundation
import XCTest

@testable import LiveText

/// Local edits, offsets in UTF-16 units, and Yjs's update format v1 byte for byte: the expected
/// bytes below were written by pycrdt 0.14 (Yrs) for the same edits.
final class LiveDocumentTests: XCTestCase {
    func testEditsCountUTF16UnitsAsYjsDoes() {
        var document = LiveDocument(clientID: 1)
        document.insert("a😀b", at: 0)
        XCTAssertEqual(document.utf16Count, 4)
        document.insert("é", at: 3)
        XCTAssertEqual(document.text, "a😀éb")
        document.delete(1..<3)
        XCTAssertEqual(document.text, "aéb")
        document.insert("", at: 1)
        XCTAssertEqual(document.text, "aéb")
    }

    /// An offset inside a surrogate pair cuts it; both halves become U+FFFD, as Yjs cuts them.
    func testAnInsertInsideASurrogatePairReplacesBothHalves() {
        var document = LiveDocument(clientID: 1)
        document.insert("a😀b", at: 0)
        document.insert("x", at: 2)
        XCTAssertEqual(document.text, "a\u{FFFD}x\u{FFFD}b")
        XCTAssertEqual(document.utf16Count, 5)
    }

    func testTheSameEditsGiveYrsBytes() {
        var document = LiveDocument(clientID: 5)
        document.insert("a😀", at: 0)
        document.insert("b", at: 3)
        document.insert("X", at: 3)
        XCTAssertEqual(document.text, "a😀Xb")
        XCTAssertEqual(hex(document.encodeStateAsUpdate()), "010305000401046e6f74650561f09f98808405020162c405020503015800")
        XCTAssertEqual(hex(document.stateVector()), "010505")
    }

    func testAnUpdateFromYrsWithDeletedContentAndADeleteSetApplies() throws {
        // pycrdt: "a😀" + "b" + "X" at byte 5, then the emoji deleted; its content is collected.
        var document = LiveDocument(clientID: 9)
        try document.apply(update: data("010405000401046e6f74650161810500028405020162c40502050301580105010102"))
        XCTAssertEqual(document.text, "aXb")
        XCTAssertEqual(document.state, StateVector([5: 5]))
    }

    /// Three members insert at one place at once: every order of arrival gives Yrs's text.
    func testConcurrentInsertsAtOnePlaceAreOrderedAsYrsOrdersThem() throws {
        let base = data("010101000401046e6f746502787900")
        let updates = [
            data("01010102c401000101014100"),
            data("01010200c401000101014200"),
            data("01020300c4010001010143440100015a00"),
        ]
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]] {
            var document = LiveDocument(clientID: 7)
            for index in order { try document.apply(update: updates[index]) }
            XCTAssertTrue(document.hasPendingUpdates, "nothing can apply before the base text")
            try document.apply(update: base)
            XCTAssertEqual(document.text, "ZxABCy", "order \(order)")
            XCTAssertFalse(document.hasPendingUpdates)
        }
        // Yrs's whole state of the same document reads to the same text and state.
        var whole = LiveDocument(clientID: 7)
        try whole.apply(update: data("03020300c4010001010143440100015a010200c40100010101420301000401046e6f746501788401000179c401000101014100"))
        XCTAssertEqual(whole.text, "ZxABCy")
        // Yrs writes the clients lowest first, Yjs highest first: the same state vector.
        XCTAssertEqual(try StateVector(encoded: whole.stateVector()), try StateVector(encoded: data("03010302010302")))
    }

    func testAnUpdateSinceAStateVectorHoldsOnlyWhatIsMissing() throws {
        var ann = LiveDocument(clientID: 1)
        ann.insert("hello world", at: 0)
        var bob = LiveDocument(clientID: 2)
        try bob.apply(update: ann.encodeStateAsUpdate())
        ann.insert("big ", at: 6)
        ann.delete(0..<1)
        let diff = try ann.encodeStateAsUpdate(since: bob.stateVector())
        XCTAssertLessThan(diff.count, ann.encodeStateAsUpdate().count)
        try bob.apply(update: diff)
        XCTAssertEqual(bob.text, "ello big world")
        // Nothing new: no structs, only the delete set.
        XCTAssertEqual(try DecodedUpdate(Array(ann.encodeStateAsUpdate(since: ann.stateVector())), root: "note").blocks.count, 0)
    }

    func testAStateReadBackIsWrittenAgainByteForByte() throws {
        var document = LiveDocument(clientID: 3)
        for (index, word) in ["one ", "two ", "three ", "😀 ", "four"].enumerated() {
            document.insert(word, at: index == 2 ? 4 : document.utf16Count)
        }
        document.delete(2..<6)
        let state = document.encodeStateAsUpdate()
        var copy = LiveDocument(clientID: 4)
        try copy.apply(update: state)
        XCTAssertEqual(copy.text, document.text)
        XCTAssertEqual(copy.encodeStateAsUpdate(), state)
        XCTAssertEqual(try StateVector(encoded: copy.stateVector()), document.state)
    }

    /// Typing one key after another joins into one item on the wire, as Yjs merges them.
    func testTypedKeysAreWrittenAsOneItem() throws {
        var document = LiveDocument(clientID: 1)
        for (offset, key) in "typing".enumerated() { document.insert(String(key), at: offset) }
        let decoded = try DecodedUpdate(Array(document.encodeStateAsUpdate()), root: "note")
        XCTAssertEqual(decoded.blocks[1]?.count, 1)
    }

    func testEachLocalEditsUpdateBringsAPeerAlong() throws {
        var ann = LiveDocument(clientID: 1)
        var bob = LiveDocument(clientID: 2)
        try bob.apply(update: ann.insert("shopping list", at: 0))
        try bob.apply(update: ann.insert(": milk", at: 13))
        try bob.apply(update: ann.delete(0..<9))
        XCTAssertEqual(bob.text, "list: milk")
        XCTAssertEqual(bob.state, ann.state)
    }

    func testAnotherRootIsRefusedAndTheTextNamedByRootIsRead() throws {
        var notes = LiveDocument(clientID: 1, root: "minutes")
        notes.insert("agenda", at: 0)
        var other = LiveDocument(clientID: 2)
        XCTAssertThrowsError(try other.apply(update: notes.encodeStateAsUpdate())) { error in
            guard case LiveTextError.unsupported = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(other.text, "")
        var same = LiveDocument(clientID: 2, root: "minutes")
        try same.apply(update: notes.encodeStateAsUpdate())
        XCTAssertEqual(same.text, "agenda")
    }

    func testALateUpdateWaitsForTheOneItBuildsOn() throws {
        var ann = LiveDocument(clientID: 1)
        let first = ann.insert("abc", at: 0)
        let second = ann.insert("d", at: 3)
        let third = ann.delete(0..<1)
        var bob = LiveDocument(clientID: 2)
        try bob.apply(update: third)
        try bob.apply(update: second)
        XCTAssertEqual(bob.text, "")
        XCTAssertTrue(bob.hasPendingUpdates)
        // A waiting update is not sent on: the state holds only what is applied.
        XCTAssertEqual(bob.state, StateVector())
        try bob.apply(update: first)
        XCTAssertEqual(bob.text, "bcd")
        XCTAssertFalse(bob.hasPendingUpdates)
    }

    /// A GC struct holds clocks but no place in the text, and an item next to one is collected
    /// too, as Yjs does: no parent is left to put it in.
    func testGCStructsAndItemsNextToThemHoldNoText() throws {
        var writer = Lib0Writer()
        writer.writeVarUInt(2)
        // Client 4: "z" after (3, 1), which is inside client 3's GC struct.
        writer.writeVarUInt(1); writer.writeVarUInt(4); writer.writeVarUInt(0)
        writer.writeUInt8(0x84); writer.writeVarUInt(3); writer.writeVarUInt(1); writer.writeVarString("z")
        // Client 3: a GC struct of 3 units, then "ok" with no origins.
        writer.writeVarUInt(2); writer.writeVarUInt(3); writer.writeVarUInt(0)
        writer.writeUInt8(0); writer.writeVarUInt(3)
        writer.writeUInt8(4); writer.writeVarUInt(1); writer.writeVarString("note"); writer.writeVarString("ok")
        writer.writeVarUInt(0)
        var document = LiveDocument(clientID: 1)
        try document.apply(update: Data(writer.bytes))
        XCTAssertEqual(document.text, "ok")
        XCTAssertEqual(document.state, StateVector([3: 5, 4: 1]))
        XCTAssertFalse(document.hasPendingUpdates)
        // Written again: GC structs, and the delete set names them.
        let decoded = try DecodedUpdate(Array(document.encodeStateAsUpdate()), root: "note")
        guard case .gc(3) = decoded.blocks[3]?.first?.content, case .gc(1) = decoded.blocks[4]?.first?.content else {
            return XCTFail("\(decoded.blocks)")
        }
        XCTAssertEqual(Set(decoded.deletes), [DeleteRange(client: 3, clock: 0, length: 3), DeleteRange(client: 4, clock: 0, length: 1)])
    }

    /// A merged update can leave a gap in a client's clocks (a Skip struct): what comes after the
    /// gap waits for it.
    func testWhatComesAfterASkipWaitsForTheGap() throws {
        var ann = LiveDocument(clientID: 1)
        let first = ann.insert("ab", at: 0)
        let gap = ann.insert("XYZ", at: 2)
        ann.insert("c", at: 5)
        var writer = Lib0Writer()
        writer.writeVarUInt(1)
        writer.writeVarUInt(3); writer.writeVarUInt(1); writer.writeVarUInt(0)
        writer.writeUInt8(4); writer.writeVarUInt(1); writer.writeVarString("note"); writer.writeVarString("ab")
        writer.writeUInt8(10); writer.writeVarUInt(3)
        writer.writeUInt8(0x84); writer.writeVarUInt(1); writer.writeVarUInt(4); writer.writeVarString("c")
        writer.writeVarUInt(0)
        var bob = LiveDocument(clientID: 2)
        try bob.apply(update: Data(writer.bytes))
        XCTAssertEqual(bob.text, "ab")
        XCTAssertTrue(bob.hasPendingUpdates)
        try bob.apply(update: first)
        try bob.apply(update: gap)
        XCTAssertEqual(bob.text, "abXYZc")
        XCTAssertFalse(bob.hasPendingUpdates)
    }

    /// What a peer's update changed, in order, for the editor: an insert where it landed, a
    /// delete of what it took; nothing for an update that waits or was had.
    func testAnAppliedUpdateSaysWhatItChanged() throws {
        var ann = LiveDocument(clientID: 1)
        var bob = LiveDocument(clientID: 2)
        XCTAssertEqual(try bob.applyReportingChanges(ann.insert("hello world", at: 0)), [.insert("hello world", at: 0)])
        XCTAssertEqual(try bob.applyReportingChanges(ann.insert("big ", at: 6)), [.insert("big ", at: 6)])
        XCTAssertEqual(try bob.applyReportingChanges(ann.delete(0..<6)), [.delete(0..<6)])
        // Two edits in one update (a diff since a state vector), in text order.
        let before = bob.stateVector()
        ann.insert("!", at: 9)
        ann.delete(0..<4)
        XCTAssertEqual(try bob.applyReportingChanges(ann.encodeStateAsUpdate(since: before)), [.delete(0..<4), .insert("!", at: 5)])
        XCTAssertEqual(bob.text, "world!")
        XCTAssertEqual(try bob.applyReportingChanges(ann.encodeStateAsUpdate()), [])
        // An undo says what it changed too.
        let undone = try XCTUnwrap(ann.undo())
        XCTAssertEqual(undone.changes, [.insert("big ", at: 0)])
        XCTAssertEqual(try bob.applyReportingChanges(undone.update), undone.changes)
    }

    /// A state where each member's insert builds on the one before, the members' IDs falling:
    /// every struct waits for a client read after it, and the state still reads in one call.
    func testAChainOfManyMembersReadsInOneCall() throws {
        var previous = LiveDocument(clientID: 2_000)
        previous.insert("0", at: 0)
        for client in stride(from: UInt64(1_999), through: 1_500, by: -1) {
            var member = LiveDocument(clientID: client)
            try member.apply(update: previous.encodeStateAsUpdate(since: StateVector()))
            member.insert(client % 2 == 0 ? "a" : "b", at: member.utf16Count / 2)
            previous = member
        }
        var fresh = LiveDocument(clientID: 1)
        try fresh.apply(update: previous.encodeStateAsUpdate())
        XCTAssertEqual(fresh.text, previous.text)
        XCTAssertEqual(fresh.utf16Count, 501)
        XCTAssertFalse(fresh.hasPendingUpdates)
    }

    private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    private func data(_ hex: String) -> Data {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes)
    }
}
