import Foundation
import XCTest

import FuzzTargets

/// Replays every committed seed and every past finding (Tests/Fuzz/<target>/) through its fuzz
/// target, so `make test` checks what `make fuzz` once found: a finding that comes back traps here.
final class FuzzCorpusReplayTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    func testEveryTargetHasSeeds() throws {
        for target in FuzzTargets.all {
            let files = try inputs(of: target.name)
            XCTAssertFalse(files.isEmpty, "Tests/Fuzz/\(target.name) has no seeds")
        }
    }

    func testEveryCorpusFolderIsATarget() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { !$0.hasPrefix(".") && !$0.contains(".") }
        for folder in folders {
            XCTAssertNotNil(FuzzTargets.named(folder), "Tests/Fuzz/\(folder) names no fuzz target")
        }
    }

    func testSeedsAndFindingsReplayWithoutAFinding() throws {
        for target in FuzzTargets.all {
            for file in try inputs(of: target.name) {
                target.run(try Data(contentsOf: file))
            }
        }
    }

    /// The ledger of issue 31: an append at 9223372036850581504 of a 4 MiB block that closes the
    /// session trapped `byteclub serve`. Its seed is kept as a finding; here it is spelled out.
    func testTheLedgerOverflowOfIssue31IsRefused() throws {
        let file = Self.corpus.appendingPathComponent("session-ledger/finding-issue31-offset-overflow")
        let data = try Data(contentsOf: file)
        XCTAssertEqual(data.count, 17)
        XCTAssertEqual(data.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, 9_223_372_036_850_581_504)
        FuzzTargets.named("session-ledger")!.run(data)
    }

    private func inputs(of name: String) throws -> [URL] {
        let folder = Self.corpus.appendingPathComponent(name)
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }.sorted { $0.path < $1.path }
    }
}
