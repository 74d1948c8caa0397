import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// Every message that names a note, a photo or a member (status bar, dialogs, banners, the
/// merge, history, transfers) shows the name escaped by ``TerminalSafe``: a name holding `ESC`,
/// C1 controls and a bidi override never reaches the terminal as such (issue 23).
///
/// A real club server with two members serves a note and a photo whose names hold a marker; the
/// app's store (``HostileNamesStore``) turns the marker into `ESC ] 0 ; PWNED BEL`, CSI as the C1
/// U+009B and U+202E RIGHT-TO-LEFT OVERRIDE (a club server refuses such names on its disk, a
/// hostile one would not), and names the members with the same characters.
@MainActor
final class HostileNamesTests: XCTestCase {
    static let escaped = #"\x1b]0;PWNED\x07\x9b2J\u202e"#
    var club: MembersClub?
    var base: URL!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-hostile-names-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        await club?.close()
        club = nil
        try? FileManager.default.removeItem(at: base)
    }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    /// The status message holds no control or bidi character, and shows the hostile part escaped.
    private func assertMessageEscaped(_ harness: Harness, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let text = harness.app.state.message?.text ?? ""
        XCTAssertFalse(TerminalSafe.needsEscaping(text), "\(what): raw in \(text.debugDescription)", file: file, line: line)
        XCTAssertTrue(text.contains(Self.escaped), "\(what): \(text.debugDescription)", file: file, line: line)
    }

    /// No cell of the screen (dialogs and layers included) holds a control or bidi character.
    private func assertScreenSafe(_ harness: Harness, _ what: String, mustShow: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let canvas = harness.render(width: 120, height: 36)
        for y in 0..<36 {
            for x in 0..<120 where TerminalSafe.needsEscaping(canvas.cell(x: x, y: y).text) {
                XCTFail("\(what): a control or bidi character at \(x),\(y): \(canvas.cell(x: x, y: y).text.debugDescription)", file: file, line: line)
                return
            }
        }
        if let mustShow { XCTAssertTrue(canvas.dump().contains(mustShow), "\(what): no \(mustShow) in\n\(canvas.dump())", file: file, line: line) }
    }

    func testEveryMessageNamingANotePhotoOrMemberIsEscaped() async throws {
        let club = try await MembersClub(notes: ["[[H]] plan.txt": "Day 1: Lyon\nDay 2: rest\nDay 3: home\n"])
        self.club = club
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos/city-dusk.jpg")
        try FileManager.default.copyItem(at: sample, to: club.base.appendingPathComponent("club/byteclub/photos/[[H]] view.jpg"))
        let ray = club.store(token: club.rayToken)
        let path = "/byteclub/[[H]] plan.txt"
        _ = try await ray.upload(data: Data("Day 1: Lyon\nDay 2: rest\nDay 3: home\n".utf8), to: path, mode: .overwrite, autorename: false)
        let downloads = base.appendingPathComponent("downloads")
        let harness = Harness(store: HostileNamesStore(base: club.store(token: club.annToken)),
                              drafts: DraftStore(directory: base.appendingPathComponent("drafts"))) { configuration in
            configuration.downloadDirectory = downloads
        }
        await harness.start()
        assertScreenSafe(harness, "the notes list")

        // Opening: "Editing …".
        harness.press(.enter)
        await harness.waitUntil("open") { harness.app.state.note?.isEditing == true }
        assertMessageEscaped(harness, "opening")
        // Ray's change while ann has edits: the banner names him.
        harness.press(.down, .down, .end)
        type(harness, " (ann)")
        _ = try await ray.upload(data: Data("Day 1: Paris\nDay 2: rest\nDay 3: home\n".utf8), to: path, mode: .overwrite, autorename: false)
        await harness.waitUntil("the banner") { harness.app.state.note?.remoteChange != nil }
        assertScreenSafe(harness, "the banner", mustShow: "Changed by " + Self.escaped)
        // The merge names him.
        harness.press(.ctrl("r"))
        await harness.waitUntil("merged") { harness.app.state.message?.text.hasPrefix("Merged with") ?? false }
        assertMessageEscaped(harness, "the merge")
        assertScreenSafe(harness, "after the merge")
        // (Ctrl-S is refused here: a title cannot hold control characters, which the app says
        // without naming it.)
        harness.press(.escape)
        await harness.waitUntil("closed") { harness.app.state.note == nil }

        // History: authors and the restore question.
        harness.press(.char("H"))
        await harness.waitUntil("the revisions") { (harness.app.state.history?.revisions.count ?? 0) >= 2 }
        assertScreenSafe(harness, "history", mustShow: Self.escaped)
        harness.press(.escape)

        // The rename prompt and the delete question name the note.
        harness.press(.char("R"))
        assertScreenSafe(harness, "the rename prompt", mustShow: Self.escaped)
        harness.press(.escape)
        harness.press(.char("d"))
        assertScreenSafe(harness, "the delete question", mustShow: Self.escaped)
        harness.press(.left, .enter)
        await harness.waitUntil("deleted") { harness.app.state.message?.text.hasPrefix("Deleted") ?? false }
        assertMessageEscaped(harness, "the delete")

        // Photos: a download names the photo, and so does the transfers panel.
        harness.press(.char("2"))
        await harness.waitUntil("the photo listed") { harness.app.state.photos.entries.count == 1 }
        harness.press(.enter)
        await harness.waitUntil("downloaded") { harness.app.state.message?.text.hasPrefix("Downloaded") ?? false }
        assertMessageEscaped(harness, "the download")
        assertScreenSafe(harness, "after the download")
        harness.press(.char("T"))
        assertScreenSafe(harness, "the transfers panel", mustShow: "view.jpg")
        harness.press(.char("T"))
        harness.press(.char("d"))
        assertScreenSafe(harness, "the photo's delete question", mustShow: Self.escaped)
        harness.press(.escape)
        harness.app.stopLiveUpdates()
    }
}

/// Forwards to a store on a real club server, turning the marker `[[H]]` in every name and path
/// it answers into `ESC ] 0 ; PWNED BEL`, `U+009B 2 J` and U+202E, and back in every path it is
/// given; members' display names get the same characters in front.
struct HostileNamesStore: ForwardingStore {
    static let marker = "[[H]]"
    static let hostile = "\u{1B}]0;PWNED\u{07}\u{9B}2J\u{202E}"
    let base: any RemoteStore

    private func shown(_ text: String) -> String {
        text.replacingOccurrences(of: Self.marker, with: Self.hostile)
            .replacingOccurrences(of: Self.marker.lowercased(), with: Self.hostile.lowercased())
    }

    private func sent(_ text: String) -> String {
        text.replacingOccurrences(of: Self.hostile, with: Self.marker)
            .replacingOccurrences(of: Self.hostile.lowercased(), with: Self.marker.lowercased())
    }

    private func shown(_ entry: RemoteEntry) -> RemoteEntry {
        var entry = entry
        entry.name = shown(entry.name)
        entry.path = shown(entry.path)
        entry.pathLower = shown(entry.pathLower)
        return entry
    }

    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        let page = try await base.listPage(sent(folder), cursor: cursor, limit: limit)
        return (page.entries.map(shown), page.next)
    }
    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry { shown(try await base.metadata(sent(path))) }
    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        try await base.search(in: sent(folder), extensions: extensions).map(shown)
    }
    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        shown(try await base.download(sent(path), to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData))
    }
    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        shown(try await base.upload(data: data, to: sent(path), mode: mode, autorename: autorename))
    }
    func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data { try await base.thumbnail(sent(path), size: size) }
    func delete(_ path: String) async throws(RemoteError) -> RemoteEntry { shown(try await base.delete(sent(path))) }
    func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        shown(try await base.move(from: sent(from), to: sent(to), autorename: autorename))
    }
    func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges {
        var changes = try await base.listChanges(since: cursor)
        changes.changes = changes.changes.map { change in
            switch change {
            case .updated(let entry): return .updated(shown(entry))
            case .deleted(let name, let path, let lower): return .deleted(name: shown(name), path: shown(path), pathLower: shown(lower))
            }
        }
        return changes
    }
    func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions {
        var revisions = try await base.revisions(sent(path), limit: limit, before: before)
        revisions.entries = revisions.entries.map(shown)
        return revisions
    }
    func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry { shown(try await base.restore(sent(path), rev: rev)) }
    func account(id: String) async throws(RemoteError) -> RemoteAccount {
        var account = try await base.account(id: id)
        account.displayName = Self.hostile + account.displayName
        return account
    }
}
