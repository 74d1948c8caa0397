@testable import TerminalUI
import TestSupport
import XCTest

/// The editor's chunked lines (`LineStore`) against a plain array of lines: the same lines after
/// every kind of edit, across chunk boundaries, and a shared copy left as it was.
final class LineStoreTests: XCTestCase {
    private func line(_ n: Int) -> [Character] { Array("line \(n)") }

    func testEditsDrawnFromSeedsLeaveTheSameLinesAsAnArray() {
        for seed in UInt64(1)...24 {
            var random = SeededGenerator(seed: seed)
            var model: [[Character]] = (0..<Int(random.next() % 3_000)).map(line)
            var store = LineStore(model)
            var made = 10_000
            for step in 0..<300 {
                let lower = model.isEmpty ? 0 : Int(random.next() % UInt64(model.count + 1))
                let upper = min(model.count, lower + Int(random.next() % (step % 10 == 0 ? 1_500 : 4)))
                let inserted = (0..<Int(random.next() % (step % 7 == 0 ? 1_200 : 3))).map { _ -> [Character] in
                    made += 1
                    return line(made)
                }
                model.replaceSubrange(lower..<upper, with: inserted)
                store.replaceSubrange(lower..<upper, with: inserted)
                if !model.isEmpty {
                    let at = Int(random.next() % UInt64(model.count))
                    model[at].append("!")
                    store[at].append("!")
                }
                XCTAssertEqual(store.count, model.count, "seed \(seed), step \(step)")
                guard step % 5 != 0 || Array(store) == model else {
                    XCTFail("seed \(seed), step \(step): the lines differ")
                    return
                }
            }
            XCTAssertEqual(Array(store), model, "seed \(seed)")
            for index in Swift.stride(from: 0, to: model.count, by: 97) { XCTAssertEqual(store[index], model[index]) }
            XCTAssertEqual(Array(store[(model.count / 3)..<(model.count / 2)]), Array(model[(model.count / 3)..<(model.count / 2)]))
        }
    }

    func testASharedCopyStaysAsItWasAndEqualityIgnoresChunking() {
        let lines = (0..<5_000).map(line)
        var store = LineStore(lines)
        let taken = store
        store[2_600].append(contentsOf: "typed")
        store.insert(Array("new"), at: 10)
        store.remove(at: 4_000)
        XCTAssertEqual(Array(taken), lines, "the copy taken before the edits")
        XCTAssertEqual(store.count, 5_000)
        XCTAssertEqual(store[2_601], Array("line 2600typed"))
        // The same lines made by another run of edits compare equal.
        var other = LineStore()
        for line in store { other.append(line) }
        XCTAssertEqual(other, store)
        other[0].append("x")
        XCTAssertNotEqual(other, store)
        XCTAssertEqual(LineStore([[]]).count, 1)
        var emptied = LineStore(lines)
        emptied.removeSubrange(0..<5_000)
        XCTAssertTrue(emptied.isEmpty)
        emptied.append(Array("again"))
        XCTAssertEqual(Array(emptied), [Array("again")])
    }

    /// What a key does to a big note's lines shared with a draft's write: the edit copies the
    /// one chunk it touches; the others stay shared (one array of 20,000 lines was copied whole).
    func testAnEditOfASharedBigNoteCopiesOneChunkNotTheWholeNote() {
        var store = LineStore((0..<20_000).map(line))
        let taken = store
        store[10_000].append("a")
        let before = taken.chunkAddresses, after = store.chunkAddresses
        XCTAssertEqual(before.count, after.count)
        XCTAssertGreaterThanOrEqual(before.count, 20_000 / 512)
        XCTAssertEqual(zip(before, after).filter { $0 != $1 }.count, 1, "one chunk copied")
        store.insert(Array("new line"), at: 15_000)
        // The chunk that took the line is made again (two, past the chunk size); the rest are shared.
        let shared = Set(before.compactMap { $0 })
        XCTAssertLessThanOrEqual(store.chunkAddresses.filter { !shared.contains($0!) }.count, 3)
        XCTAssertEqual(Array(taken), (0..<20_000).map(line))
    }
}
