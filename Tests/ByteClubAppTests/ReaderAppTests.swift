import ByteClubApp
@testable import ClubServer
import Foundation
import Remote
import TerminalUI
import XCTest

/// A reader in the app, against a real club server that keeps members with roles: notes open
/// read-only and say so, and neither a save nor a new note reaches the server, the disk or the
/// outbox.
@MainActor
final class ReaderAppTests: XCTestCase {
    private var server: ClubServer?
    private var base: URL?

    override func tearDown() async throws {
        await server?.stop()
        server = nil
        if let base { try? FileManager.default.removeItem(at: base) }
    }

    func testAReadersNotesAreReadOnlyAndNoWriteLeavesTheApp() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("reader-app-\(UUID().uuidString)")
        self.base = base
        let root = base.appendingPathComponent("club")
        let notes = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        let welcome = notes.appendingPathComponent("Welcome.md")
        try Data("# Welcome\nRead me.\n".utf8).write(to: welcome)
        var configuration = ClubServerConfiguration(root: root.path, token: "owner-\(UUID().uuidString)")
        configuration.logger.logLevel = .error
        configuration.keepsMembers = true
        let registry = MemberRegistry(root: configuration.root)
        let invite = try registry.invite("rita", role: .reader, hours: 1, server: URL(string: "http://h:1")!, pin: nil, actor: "test")
        let (token, _) = try registry.redeem(secret: invite.secret)
        let server = try await ClubServer.start(configuration)
        self.server = server
        let store = DropboxStore(displayName: "club", endpoints: .club(server.baseURL), tokens: StaticToken(token), configuration: .ephemeral)
        let harness = Harness(store: store)
        await harness.start()
        XCTAssertTrue(harness.app.state.readsOnly, "the listing says the folder is read-only for a reader")

        harness.press(.enter)
        await harness.waitUntil("the note to open") { harness.app.state.note?.isEditing == true }
        XCTAssertTrue(harness.app.state.message?.text.contains("read-only: you are a reader") ?? false, "\(String(describing: harness.app.state.message))")
        harness.press(.documentEnd, .char("x"), .ctrl("s"))
        await harness.waitUntil("the save refused") { harness.app.state.message?.text == AppState.readerRefusal }
        XCTAssertEqual(try String(contentsOf: welcome, encoding: .utf8), "# Welcome\nRead me.\n", "nothing reached the disk")
        XCTAssertEqual(harness.app.state.offline.waiting, 0, "nothing waits in the outbox")
    }
}
