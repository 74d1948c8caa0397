@testable import Agent
import Foundation
import TestSupport
import XCTest

/// The second lock on the agent's door: the kernel's word for who connected (SO_PEERCRED),
/// checked against the agent's own uid.
final class PeerCheckTests: XCTestCase {
    /// Two connected ends of a Unix stream socket.
    func pair() throws -> (UnixConnection, UnixConnection) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw CouldNotCheck("socketpair failed: \(errno)") }
        return (UnixConnection(fd: fds[0]), UnixConnection(fd: fds[1]))
    }

    func testThePeerIsTheUIDTheKernelSays() throws {
        let (a, b) = try pair()
        XCTAssertEqual(a.peerUID, getuid())
        XCTAssertEqual(b.peerUID, getuid())
    }

    func testOnlyTheOwnerIsLetIn() throws {
        let (a, _) = try pair()
        XCTAssertNil(PeerCheck(owner: getuid()).refusal(peer: a.peerUID))
        let stranger = PeerCheck(owner: getuid() == 65534 ? 65533 : 65534)
        let refusal = try XCTUnwrap(stranger.refusal(peer: a.peerUID))
        XCTAssertTrue(refusal.contains("uid \(getuid()) is refused"), refusal)
        XCTAssertNotNil(PeerCheck(owner: 1000).refusal(peer: nil), "a peer the kernel cannot name is refused")
    }

    /// Refused before its request is read: the refusal, then the end of the stream.
    func testARefusedPeerGetsOneLineAndTheDoor() throws {
        let (server, client) = try pair()
        let engine = AgentEngine(journal: AgentJournal(url: FileManager.default.temporaryDirectory.appendingPathComponent("unused-\(UUID()).json")),
                                 makeStore: { _ in throw AgentError.refused("no store in this test") }, onIdle: {})
        XCTAssertTrue(client.write(AgentLines.encode(AgentRequest(op: .list))))
        AgentServer.serve(server, engine: engine, check: PeerCheck(owner: getuid() == 65534 ? 65533 : 65534))
        let line = try XCTUnwrap(client.readLine())
        let reply = try AgentLines.decode(AgentReply.self, from: line)
        XCTAssertEqual(reply.ok, false)
        XCTAssertTrue(reply.error?.contains("is refused") ?? false, "\(reply)")
        XCTAssertNil(reply.transfers, "nothing of the agent's transfers")
        XCTAssertNil(client.readLine(), "hung up")
    }
}
