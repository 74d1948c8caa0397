import Foundation
import LiveText
import TestSupport
import XCTest

/// Real sessions of several people typing at once: the concurrent traces of josephg/editing-traces
/// (`concurrent_traces/*.json.gz`: transactions, each an agent's patches on the document its
/// parent transactions had). Replayed with one document per agent, both here and in pycrdt
/// (Tests/LiveTextTests/pycrdt_interop.py, `trace`), each must end at the trace's text, and
/// each's updates must bring the other there.
///
/// The traces are data from no package registry, so they are not in the repository:
/// `LIVETEXT_TRACES` names the folder that holds them (a checkout's `concurrent_traces`). The class
/// runs only when it is set (scripts/test-shards leaves it out otherwise, and says so); run by name
/// without it, it fails, since it could check nothing.
final class ConcurrentTraceTests: XCTestCase {
    func testConcurrentTracesReplayHereAndInPycrdtToTheirText() throws {
        guard let folder = ProcessInfo.processInfo.environment["LIVETEXT_TRACES"] else {
            throw CouldNotCheck("LIVETEXT_TRACES names no folder of concurrent traces (josephg/editing-traces)")
        }
        let traces = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json.gz") }.sorted()
        XCTAssertFalse(traces.isEmpty, "no .json.gz in \(folder)")
        for name in traces {
            try check(URL(fileURLWithPath: folder).appendingPathComponent(name))
        }
    }

    private func check(_ file: URL) throws {
        let unzipped = try ChildProcess.run(["gzip", "-dc", file.path], within: 60)
        XCTAssertEqual(unzipped.status, 0, unzipped.stderr)
        let trace = try JSONSerialization.jsonObject(with: Data(unzipped.stdout.utf8)) as! [String: Any]
        let end = trace["endContent"] as! String
        let replay = Self.replay(trace)
        XCTAssertEqual(replay.text, end, "\(file.lastPathComponent): byteclub's replay")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("livetext-trace-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("byteclub.json")
        let output = folder.appendingPathComponent("pycrdt.json")
        let request: [String: Any] = ["root": "note", "updates": replay.updates.map(PycrdtInteropTests.hex)]
        try JSONSerialization.data(withJSONObject: request).write(to: input)
        let python = try ChildProcess.run(["python3", PycrdtInteropTests.script.path, "trace", file.path, input.path, output.path], within: 600)
        XCTAssertEqual(python.status, 0, python.stderr)
        guard python.status == 0 else { return }
        let answer = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as! [String: Any]
        XCTAssertEqual(answer["byteclubText"] as? String, end, "\(file.lastPathComponent): byteclub's updates in pycrdt")
        XCTAssertEqual(answer["text"] as? String, end, "\(file.lastPathComponent): pycrdt's replay")

        // pycrdt's updates here, in a shuffled order: each waits for what it builds on.
        var random = SeededGenerator(seed: 57)
        var document = LiveDocument(clientID: 100)
        for update in try (answer["updates"] as! [String]).map(PycrdtInteropTests.data).shuffled(using: &random) {
            try document.apply(update: update)
        }
        XCTAssertFalse(document.hasPendingUpdates)
        XCTAssertEqual(document.text, end, "\(file.lastPathComponent): pycrdt's updates in byteclub")
        print("LiveText trace \(file.lastPathComponent): \(replay.updates.count) updates; byteclub, pycrdt and each's updates in the other end at the trace's text")
    }

    /// One document per agent. Each agent's transactions follow its previous one, so a version
    /// is a count of transactions per agent: before a transaction, its agent's document gets the
    /// transactions of the others that its parents have and it lacks.
    static func replay(_ trace: [String: Any]) -> (text: String, updates: [Data]) {
        let agents = trace["numAgents"] as! Int
        var documents = (0..<agents).map { LiveDocument(clientID: UInt64($0) + 1) }
        var have = Array(repeating: Array(repeating: 0, count: agents), count: agents)
        var versions: [[Int]] = []
        var byAgent = Array(repeating: [[Data]](), count: agents)
        var updates: [Data] = []
        for case let transaction as [String: Any] in trace["txns"] as! [Any] {
            let agent = transaction["agent"] as! Int
            var target = Array(repeating: 0, count: agents)
            for parent in transaction["parents"] as! [Int] {
                target = zip(target, versions[parent]).map { max($0, $1) }
            }
            for other in 0..<agents where have[agent][other] < target[other] {
                for update in byAgent[other][have[agent][other]..<target[other]].joined() {
                    try! documents[agent].apply(update: update)
                }
                have[agent][other] = target[other]
            }
            // Each patch's updates, as the edits return them.
            var sent: [Data] = []
            for case let patch as [Any] in transaction["patches"] as! [Any] {
                let position = patch[0] as! Int
                let deleted = patch[1] as! Int
                if deleted > 0 { sent.append(documents[agent].delete(position..<position + deleted)) }
                let inserted = patch[2] as! String
                if !inserted.isEmpty { sent.append(documents[agent].insert(inserted, at: position)) }
            }
            byAgent[agent].append(sent)
            updates += sent
            target[agent] += 1
            have[agent][agent] = target[agent]
            versions.append(target)
        }
        var final = LiveDocument(clientID: 0)
        for update in updates { try! final.apply(update: update) }
        return (final.text, updates)
    }
}
