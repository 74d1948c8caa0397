import Foundation
import LiveText
import TestSupport
import XCTest

/// LiveText against an implementation nobody here wrote: pycrdt, the Python binding of Yrs (the
/// Rust port of Yjs), over generated concurrent histories, both ways
/// (Tests/LiveTextTests/pycrdt_interop.py).
///
/// - byteclub's histories (``EditHistory``): every update byteclub's replicas sent, in a random
///   causal order (each after those its sender had had) and some twice, applied in pycrdt, and
///   one replica's whole state too; pycrdt's text must be byteclub's, and pycrdt's own encoding
///   of it must read back here to the same text. (pycrdt 0.14 does not wait for an update's
///   dependencies as Yjs does: given its own updates shuffled, it often ends with another text.
///   So it gets a causal order; byteclub gets every order.)
/// - pycrdt's histories: 2 to 4 pycrdt documents editing at once with partial syncs; every update
///   they sent is applied here in a shuffled order, and their whole state too.
///
/// Concurrent inserts at one place are where two implementations of YATA would part, so a text
/// that matches over many histories says the conflict rules are Yjs's. 200 histories each way
/// by default; `LIVETEXT_HISTORIES=10000` (make torture) for more. pycrdt comes from PyPI
/// (`make deps`); without it this test fails and says so.
final class PycrdtInteropTests: XCTestCase {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("pycrdt_interop.py")

    func testByteclubAndPycrdtReadEachOthersUpdatesToTheSameText() throws {
        let count = EditHistory.count(normal: 200)
        let seed = ProcessInfo.processInfo.environment["LIVETEXT_SEED"].flatMap(UInt64.init) ?? 57
        print("LiveText interop: \(count) histories each way, seed \(seed) (replay with LIVETEXT_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        var histories: [[String: Any]] = []
        var runs: [EditHistory.Run] = []
        for index in 0..<count {
            let run = EditHistory.run(seed: seed &* 1_000_003 &+ UInt64(index), stepCount: 60)
            XCTAssertNil(run.localMismatch)
            var shuffled = run.updates.shuffled(using: &random)
            shuffled += run.updates.filter { _ in Int.random(in: 0..<10, using: &random) == 0 }
            histories.append([
                "updates": EditHistory.causalOrder(of: run, using: &random).map { Self.hex(run.updates[$0]) },
                "shuffled": shuffled.map(Self.hex),
                "text": run.replicas[0].text,
                "state": Self.hex(run.replicas[0].encodeStateAsUpdate()),
            ])
            runs.append(run)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("livetext-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("byteclub.json")
        let output = folder.appendingPathComponent("pycrdt.json")
        let request: [String: Any] = ["root": "note", "seed": Int(seed % (1 << 53)), "count": count, "steps": 60, "histories": histories]
        try JSONSerialization.data(withJSONObject: request).write(to: input)

        let python = try ChildProcess.run(["python3", Self.script.path, input.path, output.path], within: Double(60 + count / 10))
        XCTAssertEqual(python.status, 0, python.status == 2 ? "pycrdt is missing: run `make deps`\n\(python.stderr)" : python.stderr)
        guard python.status == 0 else { return }
        let answer = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as! [String: Any]

        // byteclub's updates, read by pycrdt.
        let checked = answer["checked"] as! [[String: Any]]
        XCTAssertEqual(checked.count, count)
        var failures = 0
        for (index, result) in checked.enumerated() where result["ok"] as? Bool != true {
            failures += 1
            if failures <= 3 {
                XCTFail("""
                    byteclub history \(index): pycrdt has \((result["text"] as? String ?? "").debugDescription) \
                    (from the whole state: \((result["fromState"] as? String ?? "").debugDescription)), \
                    byteclub \(runs[index].replicas[0].text.debugDescription)
                    \(runs[index].steps.map(\.description).joined(separator: "\n"))
                    """)
            }
        }
        // pycrdt's encoding of byteclub's histories, read back here.
        for (index, result) in checked.enumerated() {
            var document = LiveDocument(clientID: 1)
            try document.apply(update: Self.data(result["state"] as! String))
            XCTAssertEqual(document.text, runs[index].replicas[0].text, "pycrdt's state of byteclub history \(index)")
        }

        // pycrdt's histories, read by byteclub.
        let generated = answer["generated"] as! [[String: Any]]
        XCTAssertEqual(generated.count, count)
        var mismatches = 0
        for (index, history) in generated.enumerated() {
            XCTAssertEqual(history["agreed"] as? Bool, true, "pycrdt's own replicas differ in history \(index)")
            let expected = history["text"] as! String
            var updates = try (history["updates"] as! [String]).map(Self.data).shuffled(using: &random)
            updates += updates.filter { _ in Int.random(in: 0..<10, using: &random) == 0 }
            var document = LiveDocument(clientID: 1)
            for update in updates { try document.apply(update: update) }
            var whole = LiveDocument(clientID: 2)
            try whole.apply(update: Self.data(history["state"] as! String))
            if document.text != expected || whole.text != expected || document.hasPendingUpdates {
                mismatches += 1
                if mismatches <= 3 {
                    XCTFail("pycrdt history \(index): byteclub has \(document.text.debugDescription) (whole state: \(whole.text.debugDescription)), pycrdt \(expected.debugDescription)")
                }
            }
        }
        let oneShuffledPass = checked.filter { $0["shuffledOk"] as? Bool == true }.count
        print("LiveText interop: byteclub → pycrdt \(count - failures)/\(count) histories agree; pycrdt → byteclub \(count - mismatches)/\(count)")
        print("LiveText interop: (pycrdt given byteclub's updates shuffled, one pass: \(oneShuffledPass)/\(count) agree; see docs/live-text.md)")
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func data(_ hex: String) throws -> Data {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { throw CocoaError(.coderReadCorrupt) }
            bytes.append(byte)
            index = next
        }
        return Data(bytes)
    }
}
