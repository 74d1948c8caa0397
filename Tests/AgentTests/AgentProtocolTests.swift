@testable import Agent
import Foundation
import Remote
import TestSupport
import XCTest

/// The JSON-lines protocol as the engine answers it, over a real socket pair, and the journal.
final class AgentProtocolTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("agent-protocol-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    func engine() -> AgentEngine {
        AgentEngine(journal: AgentJournal(url: folder.appendingPathComponent("journal.json")),
                    makeStore: { _ in throw AgentError.refused("no store in this test") }, onIdle: {})
    }

    /// Sends `line` to the engine and returns what it answered.
    func ask(_ engine: AgentEngine, _ line: String) async throws -> AgentReply {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw CouldNotCheck("socketpair failed: \(errno)") }
        let server = UnixConnection(fd: fds[0]), client = UnixConnection(fd: fds[1])
        await engine.handle(Data(line.utf8), on: server)
        let answer = try XCTUnwrap(client.readLine())
        return try AgentLines.decode(AgentReply.self, from: answer)
    }

    func testAnotherVersionIsToldWhichOneIsSpoken() async throws {
        let reply = try await ask(engine(), #"{"v":2,"op":"list"}"#)
        XCTAssertEqual(reply.ok, false)
        XCTAssertTrue(reply.error?.contains("protocol version 2 is not spoken here") ?? false, "\(reply)")
        XCTAssertTrue(reply.error?.contains("speaks version 1") ?? false, "\(reply)")
        let none = try await ask(engine(), #"{"op":"list"}"#)
        XCTAssertTrue(none.error?.contains("protocol version none") ?? false, "\(none)")
    }

    func testGarbageAndUnknownOpsAreRefusedInWords() async throws {
        let garbage = try await ask(engine(), "hello?")
        XCTAssertEqual(garbage.ok, false)
        XCTAssertTrue(garbage.error?.contains("not a JSON object") ?? false, "\(garbage)")
        let unknown = try await ask(engine(), #"{"v":1,"op":"format-disk"}"#)
        XCTAssertEqual(unknown.ok, false)
        XCTAssertTrue(unknown.error?.contains("bad request") ?? false, "\(unknown)")
    }

    func testSubmitBeforeHelloAndAnUnreachableClubAreRefused() async throws {
        let engine = engine()
        let transfer = AgentTransfer(id: "", kind: .upload, local: "/etc/hostname", remote: "/byteclub/x")
        let early = try await ask(engine, String(decoding: AgentLines.encode(AgentRequest(op: .submit, transfer: transfer)), as: UTF8.self).trimmingCharacters(in: .newlines))
        XCTAssertTrue(early.error?.contains("say hello first") ?? false, "\(early)")
        let remote = AgentRemote(kind: .club, key: "club:x", url: "http://127.0.0.1:1", secret: "s")
        let hello = try await ask(engine, String(decoding: AgentLines.encode(AgentRequest(op: .hello, remote: remote)), as: UTF8.self).trimmingCharacters(in: .newlines))
        XCTAssertTrue(hello.error?.contains("cannot reach the club: no store in this test") ?? false, "\(hello)")
    }

    /// The journal keeps the club but never its secret; a garbled journal is set aside, not lost.
    func testTheJournalNeverHoldsTheSecretAndKeepsABrokenFile() throws {
        let journal = AgentJournal(url: folder.appendingPathComponent("j.json"))
        var transfer = AgentTransfer(id: "1", kind: .upload, local: "/tmp/a", remote: "/byteclub/a", state: .running,
                                     created: Date(timeIntervalSince1970: 1_800_000_000))
        transfer.session = UploadSessionMark(sessionID: "abc", offset: 4 << 20)
        try journal.save(.init(remote: AgentRemote(kind: .club, key: "club:k", url: "http://h", secret: "sekrit-token"), transfers: [transfer]))
        let text = try String(contentsOf: journal.url, encoding: .utf8)
        XCTAssertFalse(text.contains("sekrit-token"), text)
        let loaded = journal.load()
        XCTAssertEqual(loaded.transfers, [transfer])
        XCTAssertEqual(loaded.remote?.key, "club:k")
        XCTAssertNil(loaded.remote?.secret)
        let attributes = try FileManager.default.attributesOfItem(atPath: journal.url.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)

        try Data("{half".utf8).write(to: journal.url)
        XCTAssertEqual(journal.load().transfers, [])
        XCTAssertEqual(try String(contentsOfFile: journal.url.path + ".broken", encoding: .utf8), "{half")
    }

    /// The socket folder: made 0700; one owned by someone else, or open to others, is refused.
    func testTheSocketFolderMustBeOursAndClosed() throws {
        let runtime = folder.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let place = try AgentPlace(key: "club:x", stateFolder: folder, environment: ["XDG_RUNTIME_DIR": runtime.path])
        XCTAssertEqual(place.folder.path, runtime.appendingPathComponent("byteclub").path)
        let mode = (try FileManager.default.attributesOfItem(atPath: place.folder.path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o700)

        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let fallback = try AgentPlace(key: "club:x", stateFolder: folder, environment: ["TMPDIR": temporary.path])
        XCTAssertEqual(fallback.folder.lastPathComponent, "byteclub-\(getuid())")

        chmod(fallback.folder.path, 0o755)
        XCTAssertThrowsError(try AgentPlace(key: "club:x", stateFolder: folder, environment: ["TMPDIR": temporary.path])) { error in
            XCTAssertTrue("\(error)".contains("must be 0700"), "\(error)")
        }
        chmod(fallback.folder.path, 0o700)
        guard getuid() == 0 else { return }
        chown(fallback.folder.path, 65534, 65534)
        XCTAssertThrowsError(try AgentPlace(key: "club:x", stateFolder: folder, environment: ["TMPDIR": temporary.path])) { error in
            XCTAssertTrue("\(error)".contains("belongs to uid 65534"), "\(error)")
        }
    }
}
