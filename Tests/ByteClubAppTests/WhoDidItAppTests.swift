@testable import ByteClubApp
import ClubKit
import ClubServer
import Foundation
import Remote
import TestSupport
import XCTest

/// Issue 54, "Who did it", in the app against real club servers: a folder another member
/// renames is one rename in the status bar, not `Someone deleted "Day one" (+1 more)`, whether
/// the server moved it (a club server) or the member's byteclub copied it and deleted the old
/// folder (an encrypted club); and on the embedded club your own change from a command is
/// known as yours, not `Someone added …`.
@MainActor
final class WhoDidItAppTests: XCTestCase {
    var club: MembersClub?
    var backends: [Backend] = []
    var folders: [URL] = []

    override func tearDown() async throws {
        await club?.close()
        club = nil
        for backend in backends { await backend.close() }
        backends = []
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        folders = []
    }

    /// Ann's app on a club where ray wrote `notes` (paths in the club's folder), and ray's store.
    private func annsApp(notes: [String: String], hidingHashes: Bool = false) async throws -> (Harness, any RemoteStore) {
        let club = try await MembersClub(notes: [:])
        self.club = club
        let ray = club.store(token: club.rayToken)
        for (path, text) in notes.sorted(by: { $0.key < $1.key }) {
            _ = try await ray.upload(data: Data(text.utf8), to: "/byteclub/" + path, mode: .add, autorename: false)
        }
        let ann = club.store(token: club.annToken)
        let harness = Harness(store: hidingHashes ? HiddenHashStore(base: ann) : ann)
        await harness.start()
        await harness.waitUntil("ann's list") { harness.app.state.notes.entries.count == notes.count }
        await harness.waitUntil("the live lists") { harness.app.live.isWatching(.notes) && harness.app.live.me != nil }
        return (harness, ray)
    }

    func testAFolderAnotherMemberRenamesIsOneRenameNotItsNotesDeleted() async throws {
        let (harness, ray) = try await annsApp(notes: ["Trip/Day one.txt": "Wind from the west\n", "Trip/Day two.txt": "Calm\n"])
        _ = try await ray.move(from: "/byteclub/Trip", to: "/byteclub/Voyage", autorename: false)
        await harness.waitUntil("the notes in their new folder") {
            Set(harness.app.state.notes.entries.map(\.path)) == ["/byteclub/Voyage/Day one.txt", "/byteclub/Voyage/Day two.txt"]
        }
        // The server moved the folder as it was: its notes keep their revisions (ray wrote
        // them, but that says nothing of who moved them), so no name is guessed.
        await harness.waitUntil("one rename said") {
            harness.app.state.message?.text == "Someone renamed folder \"Trip\" to \"Voyage\""
        }
        harness.app.stopLiveUpdates()
    }

    /// An encrypted club's byteclub moves a folder by copying each note (signed for its new
    /// path) and deleting the old folder last; its store shows no content hashes. The copies
    /// are news as they come; the deletion that ends the move is said as the move, by ray.
    func testAFolderMovedAsCopiesThenADeletionIsARenameByTheMemberWhoMovedIt() async throws {
        let notes = ["Week/Day one.txt": "Wind from the west\n", "Week/Day two.txt": "Calm\n"]
        let (harness, ray) = try await annsApp(notes: notes, hidingHashes: true)
        for (path, text) in notes.sorted(by: { $0.key < $1.key }) {
            let to = "/byteclub/Month/" + (path as NSString).lastPathComponent
            _ = try await ray.upload(data: Data(text.utf8), to: to, mode: .add, autorename: false)
        }
        await harness.waitUntil("the copies in ann's list") { harness.app.state.notes.entries.count == 4 }
        _ = try await ray.delete("/byteclub/Week")
        await harness.waitUntil("the old folder gone") { harness.app.state.notes.entries.count == 2 }
        await harness.waitUntil("the move said, by ray") {
            harness.app.state.message?.text == "ray renamed folder \"Week\" to \"Month\""
        }
        XCTAssertNotEqual(harness.app.state.message?.text, "Someone deleted \"Day one\" (+1 more)")
        harness.app.stopLiveUpdates()
    }
}

/// A member's store as an encrypted club's shows it: no content hashes (the server's are of
/// the ciphertext, which the client hides), everything else as the club gives it.
struct HiddenHashStore: ForwardingStore {
    let base: any RemoteStore

    private func hide(_ entry: RemoteEntry) -> RemoteEntry {
        var entry = entry
        entry.contentHash = nil
        return entry
    }

    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        let page = try await base.listPage(folder, cursor: cursor, limit: limit)
        return (page.entries.map(hide), page.next)
    }
    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry { hide(try await base.metadata(path)) }
    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        try await base.search(in: folder, extensions: extensions).map(hide)
    }
    func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges {
        var changes = try await base.listChanges(since: cursor)
        changes.changes = changes.changes.map { change in
            if case .updated(let entry) = change { return .updated(hide(entry)) }
            return change
        }
        return changes
    }
}
