import ByteClubApp
import ClubServer
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// Issue 53 §8: `d` on a folder of the Notes tab asks with the count of the notes that go with
/// it, and says whether they can come back: a club server keeps their history, WebDAV keeps none,
/// so there the question says they cannot be restored (before, it said "their history stays on
/// the server" on every backend, WebDAV included).
@MainActor
final class FolderDeleteQuestionAppTests: XCTestCase {
    private var webdav: RcloneWebDAV?
    private var club: ClubServer?
    private var base: URL?

    override func tearDown() async throws {
        webdav?.remove()
        webdav = nil
        await club?.stop()
        club = nil
        if let base { try? FileManager.default.removeItem(at: base) }
    }

    /// Three notes in `Trips/` (one a folder deeper), one note beside it, under `folder` (the club's folder on disk).
    private static func seed(_ folder: URL) throws {
        for (path, text) in ["Trips/Lyon.md": "Day 1\n", "Trips/Rome.md": "Day 2\n", "Trips/2026/Oslo.md": "Day 3\n", "Plans.md": "Soon\n"] {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
    }

    /// The app on `store`, started, with the `Trips` folder's row selected.
    private func appOnTrips(_ store: any RemoteStore) async throws -> Harness {
        let harness = Harness(store: store)
        await harness.start()
        await harness.waitUntil("the Trips folder listed") { Self.row(of: "Trips", in: harness) != nil }
        let row = try XCTUnwrap(Self.row(of: "Trips", in: harness))
        harness.press(.home)
        for _ in 0..<row { harness.press(.down) }
        return harness
    }

    private static func row(of folder: String, in harness: Harness) -> Int? {
        harness.app.noteItems.firstIndex { if case .folder(let item) = $0 { item.name == folder && !item.isParent } else { false } }
    }

    /// `d` on the selected folder, and the question it asks.
    private func askToDelete(_ harness: Harness) async throws -> Modal {
        harness.press(.char("d"))
        await harness.waitUntil("the question") { harness.compositor.top is DialogLayer }
        return try XCTUnwrap((harness.compositor.top as? DialogLayer)?.modal)
    }

    func testOnWebDAVTheQuestionCountsTheNotesAndSaysTheyCannotBeRestored() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        webdav = server
        try Self.seed(server.file("byteclub"))
        let store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        XCTAssertFalse(store.keepsHistory)
        let harness = try await appOnTrips(store)
        defer { harness.app.stopLiveUpdates() }

        let question = try await askToDelete(harness)
        XCTAssertEqual(question.title, "Delete folder")
        XCTAssertEqual(question.body, ["Delete the folder \"Trips\" and the 3 notes in it?",
                                       "This server keeps no history: they cannot be restored."])
        XCTAssertFalse(question.body.joined().contains("history stays"), "\(question.body)")
        XCTAssertEqual(question.buttons, ["Delete", "Cancel"])

        // Cancel (the default) keeps everything; Delete then deletes the folder and its notes.
        harness.press(.enter)
        await harness.waitUntil("the question closed") { !(harness.compositor.top is DialogLayer) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: server.file("byteclub/Trips/Lyon.md").path))
        _ = try await askToDelete(harness)
        harness.press(.left, .enter)
        let trips = server.file("byteclub/Trips").path
        await harness.waitUntil("the folder deleted") { !FileManager.default.fileExists(atPath: trips) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: server.file("byteclub/Plans.md").path), "only the folder went")
    }

    func testOnAClubServerTheQuestionCountsTheNotesAndSaysTheirHistoryStays() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("folder-delete-\(UUID().uuidString)")
        self.base = base
        let root = base.appendingPathComponent("club")
        try Self.seed(root.appendingPathComponent("byteclub"))
        let token = "folder-delete-\(UUID().uuidString)"
        var configuration = ClubServerConfiguration(root: root.path, token: token)
        configuration.logger.logLevel = .error
        let server = try await ClubServer.start(configuration)
        club = server
        let store = DropboxStore(displayName: "club", endpoints: .club(server.baseURL), tokens: StaticToken(token), configuration: .ephemeral)
        XCTAssertTrue(store.keepsHistory)
        let harness = try await appOnTrips(store)
        defer { harness.app.stopLiveUpdates() }

        let question = try await askToDelete(harness)
        XCTAssertEqual(question.body, ["Delete the folder \"Trips\" and the 3 notes in it?", "Their history stays on the server."])
        harness.press(.escape)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/Trips/2026/Oslo.md").path))
    }
}
