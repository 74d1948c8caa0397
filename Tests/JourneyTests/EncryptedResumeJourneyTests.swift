import Foundation
import TestSupport
import XCTest

/// Journey: big files in an encrypted club survive a `kill -9` (issue 56). Ann's `get` of a
/// sealed 24 MiB file is killed half way and the same command resumes it, and the file that
/// comes out is the one she put, byte for byte; her `put --agent` whose agent is killed half way
/// is taken up by the next command and lands whole, and nothing of it reaches the server's disk
/// in the clear.
final class EncryptedResumeJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    /// An encrypted club with ann in it, and `size` random bytes in a file of her own.
    private func encryptedClub(size: Int) throws -> (JourneyClub, AppHarness, URL) {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann")
        let made = try Journey.run(ann, ["init", "--encrypted"])
        XCTAssertEqual(made.status, 0, made.stderr)
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<size / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
        let file = ann.base.appendingPathComponent("big.bin")
        try bytes.write(to: file)
        return (club, ann, file)
    }

    /// The largest file in `folder` whose name ends with `suffix`.
    private func partial(in folder: URL, suffix: String = ".partial") -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(suffix) }
            .compactMap { (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path))?[.size] as? Int }.max() ?? 0
    }

    /// Every file in `folder` (and TMPDIR's `temp`) that is a sealed copy or a download of one.
    private func sealedCopies(_ folders: [URL]) -> [String] {
        folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".sealed") || $0.hasSuffix(".download") }
        }
    }

    /// `file` put as `big.bin` by `member`, and `member`'s environment with a TMPDIR of this
    /// test's own (no sealed copy may go there either), and that folder.
    private func putBigFile(_ file: URL, as member: AppHarness) throws -> (URL, [String: String]) {
        let put = try member.cli(["put", file.path, "big.bin"], within: 120)
        XCTAssertEqual(put.status, 0, put.stderr)
        let temp = member.base.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        var environment = member.environment
        environment["TMPDIR"] = temp.path
        return (temp, environment)
    }

    func testAnEncryptedGetKilledHalfWayResumesAndEndsByteForByte() throws {
        let (_, ann, file) = try encryptedClub(size: 24 << 20)
        let (temp, environment) = try putBigFile(file, as: ann)
        let target = ann.base.appendingPathComponent("got.bin")
        let started = try ChildProcess.start([try AppHarness.binary.path, "get", "big.bin", target.path, "--bwlimit", "4M"], environment: environment)
        // The plaintext is written beside the destination as it arrives (issue 56).
        let deadline = Date().addingTimeInterval(60)
        while partial(in: ann.base) < 6 << 20, Date() < deadline, started.process.isRunning { usleep(5_000) }
        XCTAssertTrue(started.process.isRunning, "the get ended before it could be killed: \(started.stderrSoFar)")
        kill(started.process.processIdentifier, SIGKILL)
        started.process.waitUntilExit()
        XCTAssertGreaterThanOrEqual(partial(in: ann.base), 6 << 20)
        XCTAssertEqual(sealedCopies([temp, ann.base]), [], "no sealed copy is made")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "no half file where the whole one goes")

        let again = try ChildProcess.run([try AppHarness.binary.path, "get", "big.bin", target.path], within: 120, environment: environment)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("resuming /byteclub/big.bin at"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: target), try Data(contentsOf: file), "the file put, byte for byte")
        let left = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path).filter { $0.hasPrefix("got.bin.") }
        XCTAssertEqual(left, [], "no sealed copy left beside it")
    }

    /// Issue 56: an encrypted get is opened as it arrives (its plaintext grows beside the
    /// destination while the download runs, and no sealed copy is made), and a chunk changed
    /// half way through the file is refused with nothing placed where the file goes.
    func testAnEncryptedGetIsOpenedAsItArrivesAndATamperedChunkIsRefused() throws {
        let (club, ann, file) = try encryptedClub(size: 24 << 20)
        let (temp, environment) = try putBigFile(file, as: ann)

        // Ann's get: plaintext beside the destination long before the last byte comes.
        let target = ann.base.appendingPathComponent("got.bin")
        let started = try ChildProcess.start([try AppHarness.binary.path, "get", "big.bin", target.path, "--bwlimit", "8M"], environment: environment)
        var seenGrowing = false
        AppHarness.eventually("plaintext beside the destination while the get runs", timeout: 60) {
            seenGrowing = started.process.isRunning && self.partial(in: ann.base) >= 2 << 20
            return seenGrowing || !started.process.isRunning
        }
        XCTAssertTrue(seenGrowing, "the get wrote no plaintext before it ended: \(started.stderrSoFar)")
        XCTAssertEqual(sealedCopies([temp, ann.base]), [], "no sealed copy is made")
        AppHarness.eventually("the get ends", timeout: 60) { !started.process.isRunning }
        let got = started.finish(kill: false)
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(try Data(contentsOf: target), try Data(contentsOf: file), "the file put, byte for byte")
        XCTAssertEqual(partial(in: ann.base), 0, "the partial file became the destination")

        // The server changes one byte in chunk 200 (of 384): refused, and nothing placed.
        let served = try XCTUnwrap(club.sealedFiles().max { ($0.fileSize ?? 0) < ($1.fileSize ?? 0) })
        var sealed = try Data(contentsOf: served)
        let chunk = 200
        let header = try XCTUnwrap(sealed.range(of: Data("\n---".utf8))).upperBound
        let at = try XCTUnwrap(sealed[header...].firstIndex(of: 0x0A)) + 1 + 16 + chunk * (65536 + 16) + 1000
        sealed[at] ^= 0x01
        try club.overwrite(served, with: sealed, as: ann)
        let second = ann.base.appendingPathComponent("tampered.bin")
        let refused = try ChildProcess.run([try AppHarness.binary.path, "get", "big.bin", second.path], within: 120, environment: environment)
        XCTAssertNotEqual(refused.status, 0, "a tampered file is refused")
        XCTAssertTrue(refused.stderr.contains("chunk \(chunk) does not authenticate"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: second.path), "nothing placed where the file goes")
        XCTAssertEqual(partial(in: ann.base), 0, "no partial plaintext left")
    }

    /// The agent's journal of ann's club, as JSON: its transfers.
    private func journalTransfers(_ ann: AppHarness) -> [[String: Any]] {
        let folder = ann.state.appendingPathComponent("agent")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
            return object["transfers"] as? [[String: Any]] ?? []
        }
        return []
    }

    private func agentPID(_ ann: AppHarness) -> pid_t? {
        let folder = ann.state.appendingPathComponent("agent")
        let lock = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).first { $0.hasSuffix(".lock") }
        return lock.flatMap { try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    func testAnEncryptedPutWhoseAgentIsKilledHalfWayContinuesItsSessionAndLandsWhole() throws {
        let (club, ann, file) = try encryptedClub(size: 24 << 20)
        // TMPDIR is a folder of this test's own, where the agent keeps what it seals from.
        let temp = ann.base.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        var environment = ann.environment
        environment["TMPDIR"] = temp.path
        func kept() -> [String: Int] {
            var found: [String: Int] = [:]
            for name in (try? FileManager.default.contentsOfDirectory(atPath: temp.path)) ?? [] where name.hasPrefix("byteclub-sealing-") {
                found[name] = (try? FileManager.default.attributesOfItem(atPath: temp.appendingPathComponent(name).path))?[.size] as? Int ?? 0
            }
            return found
        }
        let put = try ChildProcess.start([try AppHarness.binary.path, "put", "--agent", "--bwlimit", "2M", file.path, "Big.bin"], environment: environment)
        // The journal marks a sealed chunk acknowledged: the session is under way.
        var session: String?
        var offset = 0
        AppHarness.eventually("a chunk acknowledged in the journal", timeout: 60) {
            guard let mark = self.journalTransfers(ann).first?["session"] as? [String: Any], (mark["offset"] as? Int ?? 0) >= 4 << 20 else { return false }
            (session, offset) = (mark["session_id"] as? String, mark["offset"] as? Int ?? 0)
            return true
        }
        let first = try XCTUnwrap(agentPID(ann), "an agent runs")
        kill(put.process.processIdentifier, SIGKILL)
        kill(first, SIGKILL)
        _ = put.finish(kill: false)
        AppHarness.eventually("the agent gone", timeout: 20) { kill(first, 0) != 0 }

        // What is kept is the sealed file's head (its header and nonce), not a sealed copy (issue 56).
        XCTAssertEqual(kept().count, 1, "the head is kept for the resume")
        XCTAssertLessThan(kept().values.max() ?? 0, 4096, "only the head is kept, not a sealed copy")

        // A new agent goes on with the same session, past where the first one stopped (a new
        // seal would need a new session from the first byte).
        let waiting = try ChildProcess.start([try AppHarness.binary.path, "transfers", "--wait"], environment: environment)
        let expected = try XCTUnwrap(session)
        AppHarness.eventually("the same session acknowledged further", timeout: 60) {
            guard let mark = self.journalTransfers(ann).first?["session"] as? [String: Any] else { return false }
            XCTAssertEqual(mark["session_id"] as? String, expected, "the same session went on")
            return (mark["offset"] as? Int ?? 0) > offset
        }
        AppHarness.eventually("transfers --wait ends", timeout: 120) { !waiting.process.isRunning }
        let waited = waiting.finish()
        XCTAssertEqual(waited.status, 0, waited.stdout + waited.stderr)
        XCTAssertNotEqual(agentPID(ann), first, "a new agent took over")
        XCTAssertEqual(journalTransfers(ann).first?["state"] as? String, "done")
        let target = ann.base.appendingPathComponent("back.bin")
        let got = try ann.cli(["get", "Big.bin", target.path], within: 120)
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(try Data(contentsOf: target), try Data(contentsOf: file), "the file put, byte for byte")
        // Sealed on the server's disk: no run of the file's bytes there.
        let sample = try Data(contentsOf: file).subdata(in: (12 << 20)..<((12 << 20) + 64))
        for served in club.everyServedFile() {
            XCTAssertNil(try Data(contentsOf: served).range(of: sample), "\(served.path) holds the file's bytes")
        }
        XCTAssertEqual(kept(), [:], "the kept head is gone once the file landed")
    }
}

private extension URL {
    var fileSize: Int? { (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int }
}
