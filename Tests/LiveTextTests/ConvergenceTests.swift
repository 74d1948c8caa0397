import Foundation
import LiveText
import XCTest

/// The CRDT's promise over generated histories (``EditHistory``): whatever order updates come
/// in, duplicated or held back, every replica that has had them all holds the same text, and
/// each local edit did exactly the string edit asked.
final class ConvergenceTests: XCTestCase {
    func testReplicasConvergeOverGeneratedHistories() throws {
        let seeds = EditHistory.seeds(count: EditHistory.count(normal: 300))
        print("LiveText convergence: \(seeds.count) histories from seed \(seeds[0])")
        for seed in seeds {
            let run = EditHistory.run(seed: seed, stepCount: 80)
            try check(run, seed: seed)
        }
    }

    /// Long histories: texts of a few hundred characters, many tombstones, long chains of splits.
    func testLongHistoriesConverge() throws {
        for seed in EditHistory.seeds(count: 10) {
            try check(EditHistory.run(seed: seed &+ 1_000_000, stepCount: 1_500), seed: seed &+ 1_000_000)
        }
    }

    private func check(_ run: EditHistory.Run, seed: UInt64) throws {
        let context = "seed \(seed) (replay with LIVETEXT_SEED=\(seed)); steps:\n" + run.steps.map(\.description).joined(separator: "\n")
        XCTAssertNil(run.localMismatch, context)
        let texts = run.replicas.map(\.text)
        XCTAssertEqual(Set(texts).count, 1, "replicas differ: \(texts)\n\(context)")
        XCTAssertFalse(run.replicas.contains { $0.hasPendingUpdates }, context)
        // The state vectors agree, and a state sent whole (or as a diff) rebuilds the same text.
        XCTAssertEqual(Set(run.replicas.map(\.state)).count, 1, context)
        var fresh = LiveDocument(clientID: 0)
        try fresh.apply(update: run.replicas[0].encodeStateAsUpdate())
        XCTAssertEqual(fresh.text, texts[0], context)
        XCTAssertEqual(fresh.encodeStateAsUpdate(), run.replicas[0].encodeStateAsUpdate(), "a re-encoded state is not the same bytes\n\(context)")
        var late = LiveDocument(clientID: 0)
        try late.apply(update: run.updates[0])
        try late.apply(update: run.replicas[1].encodeStateAsUpdate(since: late.stateVector()))
        XCTAssertEqual(late.text, texts[0], context)
    }
}
