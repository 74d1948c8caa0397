import Foundation
import TestSupport
import XCTest

@testable import LiveText

/// Bytes from a peer are not trusted: a truncated, malformed or hostile update throws a clear
/// error and leaves the document as it was; it never traps, and no length it claims is
/// allocated before the bytes are there.
final class HostileUpdateTests: XCTestCase {
    /// A document with some history, and a copy to compare with after each refusal.
    private func document() -> LiveDocument {
        var document = LiveDocument(clientID: 1)
        document.insert("hello 😀 world", at: 0)
        document.delete(2..<4)
        var peer = LiveDocument(clientID: 2)
        try! peer.apply(update: document.encodeStateAsUpdate())
        try! document.apply(update: peer.insert("big ", at: 4))
        return document
    }

    private func assertRefused(_ bytes: [UInt8], _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
        var document = document()
        let before = document.encodeStateAsUpdate()
        XCTAssertThrowsError(try document.apply(update: Data(bytes)), message, file: file, line: line)
        XCTAssertEqual(document.encodeStateAsUpdate(), before, "changed by a refused update. \(message)", file: file, line: line)
        XCTAssertFalse(document.hasPendingUpdates, file: file, line: line)
    }

    func testEveryTruncationOfAnUpdateIsRefused() {
        var source = LiveDocument(clientID: 7)
        source.insert("some text é 中 😀", at: 0)
        source.delete(1..<3)
        let update = Array(source.encodeStateAsUpdate())
        for length in 0..<update.count {
            assertRefused(Array(update.prefix(length)), "the first \(length) of \(update.count) bytes")
        }
        assertRefused(update + [0], "a byte too many")
    }

    func testHugeClaimedLengthsAndCountsAreRefusedWithoutAllocating() {
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        // 2^63 clients; 2^63 structs of one client; a 2^63-byte string.
        assertRefused(huge)
        assertRefused([1] + huge + [1, 0])
        assertRefused([1, 1, 1, 0, 4, 1, 4] + Array("note".utf8) + huge + [0x61])
        // A varint of eleven bytes, and one past 64 bits.
        assertRefused([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
        assertRefused([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        // A deleted item and a GC struct reaching past 2^53.
        assertRefused([1, 1, 1, 0, 0x81, 1, 0] + huge + [0])
        assertRefused([1, 1, 1, 0, 0] + huge + [0])
        // A delete set of 2^63 clients.
        assertRefused([0] + huge)
    }

    func testMalformedStructsAreRefused() {
        let note = [4] + Array("note".utf8)
        assertRefused([1, 1, 1, 0, 4, 1] + note + [0, 0], "an empty string item")
        assertRefused([1, 1, 1, 0, 1, 1] + note + [0, 0], "a deleted item of no length")
        assertRefused([1, 1, 1, 0, 0, 0, 0], "a GC struct of no length")
        assertRefused([1, 1, 1, 0, 11, 1, 0], "struct type 11")
        assertRefused([1, 1, 1, 0, 4, 2] + note + [1, 0x61, 0], "parent info 2")
        assertRefused([1, 1, 1, 0, 4, 1] + note + [2, 0xC3, 0x28, 0], "a string that is not UTF-8")
        assertRefused([2, 1, 1, 0, 4, 1] + note + [1, 0x61, 1, 1, 1, 4, 1] + note + [1, 0x62, 0], "client 1 twice")
    }

    func testContentThisDocumentCannotHoldIsRefusedNotDropped() {
        let note = [4] + Array("note".utf8)
        for ref: UInt8 in [2, 3, 5, 6, 7, 8, 9] {
            assertRefused([1, 1, 1, 0, ref, 1] + note + [0, 0], "content type \(ref)")
        }
        assertRefused([1, 1, 1, 0, 4, 0, 1, 0, 1, 0x61, 0], "an item in a nested type")
        assertRefused([1, 1, 1, 0, 0x24, 1] + note + [1, 0x6B, 1, 0x61, 0], "a map entry")
        assertRefused([1, 1, 1, 0, 4, 1, 3] + Array("map".utf8) + [1, 0x61, 0], "another root")
    }

    /// Items whose origins point nowhere sensible wait, or land somewhere, but never trap; the
    /// document still encodes, and reads back. (Not always to the same text: origins that
    /// contradict the list, a right origin left of the origin, make YATA's order depend on the
    /// order of integration, in Yjs too. Convergence is promised for updates peers wrote.)
    func testOriginsThatPointAnywhereNeverTrap() throws {
        var random = SeededGenerator(seed: 57)
        for _ in 0..<2_000 {
            var document = document()
            var writer = Lib0Writer()
            writer.writeVarUInt(1)
            writer.writeVarUInt(1)
            let client = UInt64.random(in: 1...3, using: &random)
            writer.writeVarUInt(client)
            writer.writeVarUInt(document.state[client])
            let hasOrigin = Bool.random(using: &random)
            let hasRight = Bool.random(using: &random)
            writer.writeUInt8(4 | (hasOrigin ? 0x80 : 0) | (hasRight ? 0x40 : 0))
            for present in [hasOrigin, hasRight] where present {
                writer.writeVarUInt(UInt64.random(in: 1...3, using: &random))
                writer.writeVarUInt(UInt64.random(in: 0...25, using: &random))
            }
            if !hasOrigin && !hasRight {
                writer.writeVarUInt(1)
                writer.writeVarString("note")
            }
            writer.writeVarString("x")
            writer.writeVarUInt(1)
            writer.writeVarUInt(UInt64.random(in: 1...3, using: &random))
            writer.writeVarUInt(1)
            writer.writeVarUInt(UInt64.random(in: 0...30, using: &random))
            writer.writeVarUInt(UInt64.random(in: 1...30, using: &random))
            try document.apply(update: Data(writer.bytes))
            var copy = LiveDocument(clientID: 9)
            try copy.apply(update: document.encodeStateAsUpdate())
            XCTAssertEqual(copy.state, document.state)
            XCTAssertEqual(copy.utf16Count, document.utf16Count)
        }
    }

    /// Random bytes, and a real update with bytes flipped: refused unchanged, or applied.
    func testFlippedBytesAreRefusedOrApplied() throws {
        var random = SeededGenerator(seed: 7)
        var source = LiveDocument(clientID: 5)
        source.insert("abcdef 😀 ghi", at: 0)
        source.delete(3..<5)
        source.insert("中", at: 2)
        let update = Array(source.encodeStateAsUpdate())
        for _ in 0..<5_000 {
            var bytes = update
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            var document = document()
            let before = document.encodeStateAsUpdate()
            do {
                try document.apply(update: Data(bytes))
                var copy = LiveDocument(clientID: 9)
                try copy.apply(update: document.encodeStateAsUpdate())
                XCTAssertEqual(copy.state, document.state)
                XCTAssertEqual(copy.utf16Count, document.utf16Count)
            } catch {
                XCTAssertEqual(document.encodeStateAsUpdate(), before)
            }
        }
    }

    func testAMalformedStateVectorIsRefused() {
        let document = document()
        XCTAssertThrowsError(try document.encodeStateAsUpdate(since: Data([1, 5])))
        XCTAssertThrowsError(try document.encodeStateAsUpdate(since: Data([0xFF, 0xFF, 0xFF, 0x7F])))
        XCTAssertThrowsError(try document.encodeStateAsUpdate(since: Data([1, 5, 5, 0])))
        XCTAssertNoThrow(try document.encodeStateAsUpdate(since: nil))
    }

    func testErrorsSayWhatAndWhere() {
        var document = LiveDocument(clientID: 1)
        XCTAssertThrowsError(try document.apply(update: Data([1, 1]))) { error in
            // One client's section claimed, and too few bytes left for one.
            XCTAssertEqual("\(error)", "the update ends early (byte 0)")
        }
        XCTAssertThrowsError(try document.apply(update: Data([1, 1, 1, 0, 6, 1, 4] + Array("note".utf8)))) { error in
            XCTAssertEqual("\(error)", "an update this document cannot hold: content of type 6 (only text and deleted text are held) (byte 4)")
        }
    }
}
