import ClubServer
import Foundation
import Imaging
import TestSupport
import XCTest

/// Random and mutated arguments against every endpoint of a running server: every answer must be
/// a well-formed success, a Dropbox-shaped JSON error or the documented plain-text 400, never a
/// 500 or silence, and the server must still answer normally at the end.
///
/// Bounded for CI: `FUZZ_CASES` cases (default 3,000) within a time budget, from the seed
/// `FUZZ_SEED` (fixed by default, so a failure replays; a failure prints its seed and case).
final class FuzzTests: XCTestCase {
    private var club: ServerFixture?

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func testMutatedArgumentsAlwaysGetAClearAnswer() async throws {
        let club = try await ServerFixture()
        self.club = club
        try club.write("byteclub/a.txt", "alpha")
        try club.write("byteclub/notes/b.md", "beta")
        try club.write("fuzz/keep.txt", "keep")
        try JPEG.encode(RGBImage(width: 64, height: 48, pixels: [UInt8](repeating: 120, count: 64 * 48 * 3)))
            .write(to: club.root.appendingPathComponent("byteclub/p.jpg"))
        let listing = try await club.rpc("2/files/list_folder", ["path": "/byteclub", "limit": 1])
        let searching = try await club.rpc("2/files/search_v2", ["query": "a", "options": ["max_results": 1]])
        let started = try await club.content("2/files/upload_session/start", ["close": false], body: Data("abc".utf8))
        let seeds = FuzzCorpus.Seeds(listCursor: listing.json["cursor"] as? String ?? "x", searchCursor: searching.json["cursor"] as? String ?? "x",
                                     sessionID: started.json["session_id"] as? String ?? "x")

        let environment = ProcessInfo.processInfo.environment
        let seed = environment["FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x00B7_EC1B
        let cases = environment["FUZZ_CASES"].flatMap { Int($0) } ?? 3000
        let budget = 45.0
        let port = club.server.port
        let token = club.token
        let run = try await TestSocket.onThread { () -> FuzzRun in
            var run = FuzzRun()
            var random = SeededGenerator(seed: seed)
            let corpus = FuzzCorpus(seeds: seeds)
            var socket: TestSocket?
            // What the socket carried before, for a failure on a connection kept alive.
            var previous = "a new connection"
            let start = Date()
            for index in 0..<cases {
                if Date().timeIntervalSince(start) > budget { break }
                let fuzzCase = corpus.makeCase(&random)
                let bytes = fuzzCase.request(token: token)
                // A connection kept alive may be closed by the server between two requests
                // (RFC 9112 9.3.1); an HTTP client then sends the request again on a new one, and
                // so does this loop, once. A new connection closed without a word is a failure.
                for attempt in 0..<2 {
                    let reused = socket != nil
                    do {
                        if socket == nil { socket = try TestSocket(port: port) }
                        try socket!.send(bytes)
                        let answer = try socket!.readAnswer(timeout: 10)
                        if let problem = FuzzVerdict.problem(with: answer, for: fuzzCase) {
                            run.fail("case \(index) (seed \(seed)): \(problem)\n  request: \(fuzzCase.summary)")
                        }
                        run.statuses[answer.status, default: 0] += 1
                        previous = answer.closes ? "a new connection" : "case \(index) answered \(answer.status) on this connection: \(fuzzCase.summary)"
                        if answer.closes { socket = nil }
                    } catch TestSocket.Failure.closedBeforeAnswer(let got) where got.isEmpty && reused && attempt == 0 {
                        run.resent += 1
                        socket = nil
                        previous = "a new connection"
                        continue
                    } catch {
                        run.fail("case \(index) (seed \(seed)): \(error)\n  request: \(fuzzCase.summary)\n  after: \(previous)")
                        socket = nil
                        previous = "a new connection"
                    }
                    break
                }
                run.done += 1
            }
            run.seconds = Date().timeIntervalSince(start)
            return run
        }
        for failure in run.failures.prefix(20) { XCTFail(failure) }
        if run.failures.count > 20 { XCTFail("… and \(run.failures.count - 20) more") }
        XCTAssertGreaterThanOrEqual(run.done, min(cases, 1000), "enough cases ran within \(budget) s")
        let statuses = run.statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
        print("fuzz: \(run.done) cases in \(String(format: "%.1f", run.seconds)) s (\(Int(Double(run.done) / max(run.seconds, 0.001))) cases/s), seed \(seed): \(statuses); sent again after a kept-alive connection closed: \(run.resent)")

        // Still standing, and still right.
        let after = try await club.rpc("2/files/get_metadata", ["path": "/fuzz/keep.txt"])
        XCTAssertEqual(after.status, 200, after.text)
        let listed = try await club.rpc("2/files/list_folder", ["path": ""])
        XCTAssertEqual(listed.status, 200, listed.text)
    }
}

/// What one fuzz run saw.
struct FuzzRun: Sendable {
    var done = 0
    var seconds = 0.0
    var statuses: [Int: Int] = [:]
    var failures: [String] = []
    /// Requests sent again on a new connection after a kept-alive one closed unanswered.
    var resent = 0

    mutating func fail(_ text: String) { failures.append(text) }
}

/// Judges one answer.
enum FuzzVerdict {
    static func problem(with answer: TestSocket.Answer, for fuzzCase: FuzzCase) -> String? {
        let type = answer.headers["content-type"] ?? ""
        switch answer.status {
        case 200:
            if let result = answer.headers["dropbox-api-result"] {
                guard (try? JSONSerialization.jsonObject(with: Data(result.utf8))) is [String: Any] else { return "200 with a Dropbox-API-Result that is not a JSON object" }
            } else {
                guard type.hasPrefix("application/json"), (try? JSONSerialization.jsonObject(with: answer.body, options: [.fragmentsAllowed])) != nil else {
                    return "200 that is not JSON: \(type) \(answer.text.prefix(200).debugDescription)"
                }
            }
            return nil
        case 400:
            if type.hasPrefix("text/plain") {
                return answer.text.hasPrefix("Error in call to API function") ? nil : "400 text that is not Dropbox's: \(answer.text.prefix(200).debugDescription)"
            }
            return jsonError(answer)
        case 409, 413, 431:
            return jsonError(answer)
        default:
            return "status \(answer.status): \(type) \(answer.text.prefix(200).debugDescription)"
        }
    }

    private static func jsonError(_ answer: TestSocket.Answer) -> String? {
        guard answer.headers["content-type"]?.hasPrefix("application/json") == true,
              let object = answer.json, let summary = object["error_summary"] as? String, !summary.isEmpty,
              object["error"] is [String: Any] else {
            return "\(answer.status) that is not a Dropbox JSON error: \(answer.text.prefix(200).debugDescription)"
        }
        return nil
    }
}
