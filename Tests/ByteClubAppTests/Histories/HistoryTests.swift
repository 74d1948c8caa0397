import Foundation
import TestSupport
import XCTest

/// Generated histories (issue 53): ~200 steps of two members over two clubs on one machine, from
/// the app and the command line, with the first club's server going away and coming back, apps
/// killed and started again, and (in an encrypted club) bob removed; after each history, the
/// promise is checked (``HistoryCheck``). A fixed set of seeds runs here on each backend;
/// `make torture` runs more (`HISTORY_SEEDS=N`, `HISTORY_SEED=S` for one, `HISTORY_STEPS`).
/// A failing seed prints its history, step by step.
@MainActor
class HistoryTests: XCTestCase {
    /// The seeds `make test` runs on each backend: one history of 200 steps each, a job of its
    /// own per backend (the classes below), side by side with the rest of the suite.
    static let fixedSeeds: [UInt64] = [1]

    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let one = environment["HISTORY_SEED"].flatMap(UInt64.init) { return [one] }
        if let count = environment["HISTORY_SEEDS"].flatMap(Int.init), count > 0 {
            let first = environment["HISTORY_FIRST_SEED"].flatMap(UInt64.init) ?? 1
            return (0..<UInt64(count)).map { first + $0 }
        }
        return fixedSeeds
    }

    static var steps: Int { ProcessInfo.processInfo.environment["HISTORY_STEPS"].flatMap(Int.init) ?? 200 }

    func run(_ backend: HistoryBackend) async throws {
        if backend == .webdav { try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)") }
        let started = Date()
        var stepsRun = 0, linesTold = 0
        for seed in Self.seeds {
            let run = try await HistoryRun(seed: seed, backend: backend)
            do {
                try await run.launch(.ann, on: 0)
                try await run.launch(.bob, on: 0)
                for _ in 0..<Self.steps { try await run.perform(run.plan.next(run.view)) }
                let broken = try await HistoryCheck.violations(of: run)
                if ProcessInfo.processInfo.environment["HISTORY_VERBOSE"] != nil { print(run.log.joined(separator: "\n")) }
                stepsRun += run.step
                linesTold += run.lines.count
                print("history seed \(seed) on \(backend.rawValue): \(run.step) steps, \(run.lines.count) lines told, \(broken.count) broken")
                if !broken.isEmpty {
                    XCTFail("""
                        seed \(seed) on \(backend.rawValue) broke the promise (replay: HISTORY_SEED=\(seed) \
                        .build/debug/byteclubPackageTests.xctest ByteClubAppTests.History\(backend.rawValue.capitalized)Tests):
                        \(broken.joined(separator: "\n"))
                        the history:
                        \(run.log.joined(separator: "\n"))
                        """)
                }
            } catch {
                XCTFail("seed \(seed) on \(backend.rawValue) stopped at step \(run.step): \(error)\n\(run.log.joined(separator: "\n"))")
            }
            await run.close()
        }
        print("histories on \(backend.rawValue): \(Self.seeds.count) seeds (\(Self.seeds.first ?? 0)…\(Self.seeds.last ?? 0)), \(stepsRun) steps, \(linesTold) lines told, \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}

/// The histories on the club server.
final class HistoryClubTests: HistoryTests {
    func testHistories() async throws { try await run(.club) }
}

/// The histories on `rclone serve webdav`.
final class HistoryWebdavTests: HistoryTests {
    func testHistories() async throws { try await run(.webdav) }
}

/// The histories on an encrypted club (over the club server), bob removed along the way.
final class HistoryEncryptedTests: HistoryTests {
    func testHistories() async throws { try await run(.encrypted) }
}
