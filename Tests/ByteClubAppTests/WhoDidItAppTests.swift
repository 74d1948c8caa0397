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

/// Issue 69, "you" for your own changes from the shell: the app said `Someone added …` and
/// `Reloaded …: another member changed it` of a command's change on the embedded club (its own
/// server cannot name a write another process's server made), and on a club of members a change
/// by your own account from elsewhere left the open note as it was.
@MainActor
final class YourOwnChangesAppTests: XCTestCase {
    var backends: [Backend] = []
    var club: MembersClub?
    var folders: [URL] = []

    override func tearDown() async throws {
        for backend in backends { await backend.close() }
        backends = []
        await club?.close()
        club = nil
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        folders = []
    }


    func testOnTheEmbeddedClubACommandsChangeIsYours() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("your-own-\(UUID().uuidString)")
        folders.append(base)
        let root = base.appendingPathComponent("club")
        let backend = try await Backend.connect(.embedded(root: root), connection: ConnectionOptions())
        backends.append(backend)
        let harness = Harness(store: backend.store) { $0.changesWithoutAuthorAreYours = backend.embeddedRoot != nil }
        await harness.start()
        await harness.waitUntil("the seeded list") { !harness.app.state.notes.entries.isEmpty }
        await harness.waitUntil("the live lists") { harness.app.live.isWatching(.notes) && harness.app.live.me != nil }

        // `byteclub put` in another process, on the same folder, as a user runs it.
        let executable = try Requirement.byteclub()
        var environment = ProcessInfo.processInfo.environment
        for (key, folder) in ["HOME": "home", "XDG_CONFIG_HOME": "config", "XDG_STATE_HOME": "state", "XDG_CACHE_HOME": "cache", "XDG_DATA_HOME": "data"] {
            environment[key] = base.appendingPathComponent(folder).path
        }
        func put(_ name: String, _ text: String, mode: [String] = []) throws {
            let result = try ChildProcess.run([executable.path, "put", "-", name, "--data-dir", root.path] + mode, environment: environment, input: text)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        try put("From the shell.md", "Written in a terminal\n")
        await harness.waitUntil("the command's note said as yours") { harness.app.state.message?.text == "You added \"From the shell\"" }

        try await harness.open(note: "From the shell.md")
        try put("From the shell.md", "Written in a terminal\nand again\n", mode: ["--mode", "overwrite"])
        await harness.waitUntil("the open note reloaded, said as yours") {
            harness.app.state.note?.editor.body.text == "Written in a terminal\nand again\n"
                && harness.app.state.message?.text == "Reloaded \"From the shell\": you changed it"
        }
        harness.app.stopLiveUpdates()
    }

    func testOnAClubOfMembersYourAccountsChangeFromElsewhereReloadsTheOpenNoteAsYours() async throws {
        let club = try await MembersClub(notes: ["Plan.txt": "Rig the jib\n"])
        self.club = club
        let harness = Harness(store: club.store(token: club.annToken))
        await harness.start()
        await harness.waitUntil("ann's list") { harness.app.state.notes.entries.count == 1 }
        await harness.waitUntil("the live lists") { harness.app.live.isWatching(.notes) && harness.app.live.me != nil }
        try await harness.open(note: "Plan.txt")

        // Ann's shell, with her own token.
        let shell = club.store(token: club.annToken)
        let entry = try await shell.metadata("/byteclub/Plan.txt")
        _ = try await shell.upload(data: Data("Rig the jib\nand the main\n".utf8), to: entry.path, mode: .update(rev: entry.rev ?? ""), autorename: false)
        await harness.waitUntil("the open note reloaded, said as yours") {
            harness.app.state.note?.editor.body.text == "Rig the jib\nand the main\n"
                && harness.app.state.message?.text == "Reloaded \"Plan\": you changed it"
        }
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
