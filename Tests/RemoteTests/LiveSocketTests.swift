import Foundation
import Remote
import Synchronization
import XCTest

/// `LiveSocket` on a real club server over loopback: in an encrypted club (a ``LiveSeal``) a
/// member's cursor travels sealed as its updates do, so the other member gets the position and
/// the server (and anyone in the room without the key) only the sealed bytes.
final class LiveSocketTests: XCTestCase {
    var club: LiveClub!
    var sockets: [LiveSocket] = []

    override func setUp() async throws {
        club = try await LiveClub()
    }

    override func tearDown() async throws {
        for socket in sockets { socket.close() }
        await club?.close()
    }

    /// What one socket was told, in order.
    final class Events: Sendable {
        let seen = Mutex<[LiveSocketEvent]>([])
        func add(_ event: LiveSocketEvent) { seen.withLock { $0.append(event) } }
        var cursors: [(member: String, at: String)] {
            seen.withLock { $0.compactMap { if case .cursor(let member, let at) = $0 { (member, at) } else { nil } } }
        }
        var updates: [Data] { seen.withLock { $0.compactMap { if case .update(_, let bytes) = $0 { bytes } else { nil } } } }
        var presences: [[String]] { seen.withLock { $0.compactMap { if case .presence(let members) = $0 { members } else { nil } } } }
    }

    /// Polls `condition` until it holds or ten seconds pass.
    func eventually(_ what: String, _ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("timed out waiting for \(what)") }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A seal for the test that says what it sealed: the kind, then the bytes reversed.
    static func mark(_ kind: LiveSeal.Kind) -> Data { Data((kind == .cursor ? "cursor:" : "update:").utf8) }

    func testAnEncryptedClubsCursorsTravelSealedAndArriveOpened() async throws {
        try Data("minutes\n".utf8).write(to: club.root.appendingPathComponent("byteclub/minutes.md"))
        // An encrypted club's folder holds its keys: the server then neither seeds the room
        // from the file nor writes it (it cannot read the sealed updates).
        try FileManager.default.createDirectory(at: club.root.appendingPathComponent("byteclub/.clubkeys"), withIntermediateDirectories: true)
        let entry = try await club.store().metadata("/byteclub/minutes.md")
        let id = try XCTUnwrap(entry.id)
        let mark = Self.mark
        let seal = LiveSeal(seal: { plain, kind in mark(kind) + Data(plain.reversed()) }, open: { sealed, kind in
            guard sealed.starts(with: mark(kind)) else { throw RemoteError.local("sealed as another kind") }
            return Data(sealed.dropFirst(mark(kind).count).reversed())
        })
        let (alice, bob, outsider) = (Events(), Events(), Events())
        for (member, events, sealing) in [(LiveClub.alice, alice, Optional(seal)), (LiveClub.bob, bob, seal), (LiveClub.bob, outsider, nil)] {
            sockets.append(try XCTUnwrap(club.store(member).openLive(fileID: id, seal: sealing, deliver: events.add)))
        }
        await eventually("all three in the note") { bob.presences.last?.count == 2 && alice.presences.last?.count == 2 && outsider.presences.last?.count == 2 }

        sockets[0].send(cursor: "12")
        await eventually("alice's cursor at bob's") { !bob.cursors.isEmpty }
        XCTAssertEqual(bob.cursors.first?.member, "Alice Liddell")
        XCTAssertEqual(bob.cursors.first?.at, "12", "opened")
        await eventually("alice's cursor at the outsider's") { !outsider.cursors.isEmpty }
        XCTAssertEqual(outsider.cursors.first?.at, (mark(.cursor) + Data("21".utf8)).base64EncodedString(), "relayed sealed, as sent")

        sockets[0].send(update: Data([1, 2, 3]))
        await eventually("alice's update at bob's") { !bob.updates.isEmpty }
        XCTAssertEqual(bob.updates, [Data([1, 2, 3])])
        XCTAssertEqual(outsider.updates, [mark(.update) + Data([3, 2, 1])], "relayed sealed")

        // Something sealed as an update sent as a cursor (a server passing one off as the
        // other) does not open, nor does what is not base64; one sealed as a cursor does.
        sockets[2].send(cursor: (mark(.update) + Data("99".utf8)).base64EncodedString())
        sockets[2].send(cursor: "7")
        sockets[2].send(cursor: (mark(.cursor) + Data("54".utf8)).base64EncodedString())
        await eventually("the outsider's sealed cursor at alice's") { !alice.cursors.isEmpty }
        XCTAssertEqual(alice.cursors.map(\.at), ["45"], "the cursors that do not open are dropped")
    }
}
