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

    /// A club server keeping members, with `Welcome.md` and rita as `role`: rita's store, the
    /// registry (to change her role) and the note's file on the server's disk.
    private func club(rita role: MemberRole) async throws -> (store: DropboxStore, registry: MemberRegistry, welcome: URL) {
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
        let invite = try registry.invite("rita", role: role, hours: 1, server: URL(string: "http://h:1")!, pin: nil, actor: "test")
        let (token, _) = try registry.redeem(secret: invite.secret)
        let server = try await ClubServer.start(configuration)
        self.server = server
        let store = DropboxStore(displayName: "club", endpoints: .club(server.baseURL), tokens: StaticToken(token), configuration: .ephemeral)
        return (store, registry, welcome)
    }

    func testAReadersNotesAreReadOnlyAndNoWriteLeavesTheApp() async throws {
        let (store, _, welcome) = try await club(rita: .reader)
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

    /// Issue 69: a draft typed while an editor, opened after the role became reader, opened
    /// editable with "Ctrl-S saves it" and was then refused. It opens read-only now, says the
    /// draft stays and how it can be saved, and closing it keeps it on disk.
    func testAReadersDraftOpensReadOnlyAndClosingKeepsIt() async throws {
        let (store, registry, welcome) = try await club(rita: .editor)
        // Typed while rita was an editor, never saved; then an admin made her a reader.
        let entry = try await store.metadata("/byteclub/Welcome.md")
        let drafts = DraftStore(directory: try XCTUnwrap(base).appendingPathComponent("drafts"))
        let body = "# Welcome\nRead me.\nMy unsaved line\n"
        try drafts.save(Draft(id: Draft.id(forPath: entry.path), path: entry.path, baseRev: entry.rev, title: "Welcome", body: body, updated: Clock.now))
        try registry.setRole("rita", .reader, actor: "test")

        let harness = Harness(store: store, drafts: drafts)
        await harness.start()
        XCTAssertTrue(harness.app.state.readsOnly)
        harness.press(.enter)
        await harness.waitUntil("the draft to open") { harness.app.state.note?.isEditing == true }
        let note = try XCTUnwrap(harness.app.state.note)
        XCTAssertTrue(note.isReadOnly, "a reader's draft opens read-only")
        XCTAssertEqual(note.editor.body.text, body, "the draft's text is what is shown")
        let banner = note.banner ?? ""
        XCTAssertTrue(banner.hasPrefix("Read-only: you are a reader in this club. Your draft from "), banner)
        XCTAssertTrue(banner.hasSuffix(" stays on this machine and can be saved once an admin gives you the editor role"), banner)
        XCTAssertFalse(note.banner?.contains("Ctrl-S saves") ?? true)
        XCTAssertTrue(harness.app.state.message?.text.contains("Esc closes and keeps it") ?? false, "\(String(describing: harness.app.state.message))")

        // Ctrl-S is refused at once, as for any reader's note; Esc closes and the draft stays.
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save refused") { harness.app.state.message?.text == AppState.readerRefusal }
        harness.press(.escape)
        await harness.waitUntil("the note closed") { harness.app.state.note == nil }
        XCTAssertEqual(drafts.load(Draft.id(forPath: entry.path))?.body, body, "closing a reader's draft keeps it")
        XCTAssertTrue(harness.app.state.drafts.contains { $0.id == Draft.id(forPath: entry.path) }, "still marked ✎ in Notes")
        XCTAssertEqual(try String(contentsOf: welcome, encoding: .utf8), "# Welcome\nRead me.\n", "nothing reached the disk")
    }
}
