import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// Merges on a server that keeps no revisions (`rclone serve webdav`): the text each edit
/// started from is kept with the draft and the outbox item, so a three-way merge works on any
/// backend (issue 43 §5). Before, Ctrl-R answered "could not merge: Not supported by this
/// remote: revisions" and offline edits to different lines ended as "cannot be merged; your
/// text is kept as a draft".
final class WebDAVMergeTests: XCTestCase {
    var server: RcloneWebDAV!
    var store: WebDAVStore!
    var folder: URL!

    override func setUp() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("a\nb\nc\nd\n".utf8).write(to: server.file("byteclub/Plans.md"))
        store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("webdav-merge-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        server?.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    func testAnOutboxSaveMergesAnotherMembersChangeToOtherLinesWithTheBaseItKept() async throws {
        let opened = try await store.read("/byteclub/Plans.md")
        let baseText = String(decoding: opened.data, as: UTF8.self)
        var item = OutboxItem(kind: .save, path: "/byteclub/Plans.md", baseRev: opened.entry.rev, title: "Plans",
                              text: "RAY\nb\nc\nd\n", queued: Date())
        item.baseText = baseText
        let outbox = Outbox(directory: folder.appendingPathComponent("outbox"))
        _ = try outbox.append(item)
        // Another member changes another line meanwhile.
        _ = try await store.upload(data: Data("a\nb\nc\nANN\n".utf8), to: "/byteclub/Plans.md", mode: .overwrite, autorename: false)
        do {
            _ = try await store.read(rev: opened.entry.rev ?? "")
            XCTFail("rclone keeps revisions now? the test no longer proves anything")
        } catch {}

        let sender = OutboxSender(store: store, outbox: outbox, drafts: DraftStore(directory: folder.appendingPathComponent("drafts")))
        let reports = Box()
        let run = await sender.sendAll { reports.add($0) }
        XCTAssertEqual(run, .done)
        guard case .merged? = reports.all.first?.result else { return XCTFail("\(reports.all)") }
        XCTAssertEqual(try String(contentsOf: server.file("byteclub/Plans.md"), encoding: .utf8), "RAY\nb\nc\nANN\n")
        XCTAssertTrue(outbox.isEmpty)
    }

    func testAnOutboxSaveWithoutItsBaseTextStillKeepsADraftAndNeverOverwrites() async throws {
        let opened = try await store.read("/byteclub/Plans.md")
        let item = OutboxItem(kind: .save, path: "/byteclub/Plans.md", baseRev: opened.entry.rev, title: "Plans",
                              text: "RAY\nb\nc\nd\n", queued: Date())
        let outbox = Outbox(directory: folder.appendingPathComponent("outbox"))
        _ = try outbox.append(item)
        _ = try await store.upload(data: Data("a\nb\nc\nANN\n".utf8), to: "/byteclub/Plans.md", mode: .overwrite, autorename: false)
        let sender = OutboxSender(store: store, outbox: outbox, drafts: DraftStore(directory: folder.appendingPathComponent("drafts")))
        let reports = Box()
        _ = await sender.sendAll { reports.add($0) }
        guard case .conflict? = reports.all.first?.result else { return XCTFail("\(reports.all)") }
        XCTAssertEqual(try String(contentsOf: server.file("byteclub/Plans.md"), encoding: .utf8), "a\nb\nc\nANN\n", "theirs untouched")
    }

    /// The reports a run hands over, from whichever thread.
    final class Box: @unchecked Sendable {
        // @unchecked Sendable: `items` is only touched under `lock`.
        private let lock = NSLock()
        private var items: [OutboxReport] = []
        func add(_ report: OutboxReport) { lock.withLock { items.append(report) } }
        var all: [OutboxReport] { lock.withLock { items } }
    }
}

/// The app's own merge on WebDAV: the note open in the editor, another member's change to other
/// lines on the server meanwhile, and Ctrl-S merges from the text the editor opened with.
@MainActor
final class WebDAVAppMergeTests: XCTestCase {
    var server: RcloneWebDAV!
    var drafts: URL!

    override func setUp() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("Day 1: Lyon\nDay 2: rest\nDay 3: home\n".utf8).write(to: server.file("byteclub/Plans.md"))
        drafts = FileManager.default.temporaryDirectory.appendingPathComponent("webdav-app-merge-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        server?.stop()
        if let drafts { try? FileManager.default.removeItem(at: drafts) }
    }

    /// The app on the WebDAV folder, started.
    private func startedApp() async throws -> Harness {
        let store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        let harness = Harness(store: store, drafts: DraftStore(directory: drafts))
        await harness.start()
        return harness
    }

    /// Plans open with " (ann)" typed at the end of its third line, and another member's change
    /// to its first line then made straight on the server's disk; `key` merges them.
    private func mergeBothEdits(with key: Key) async throws -> Harness {
        let harness = try await startedApp()
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
        harness.press(.down, .down, .end)
        for character in " (ann)" { harness.press(.char(character)) }
        try Data("Day 1: Paris\nDay 2: rest\nDay 3: home\n".utf8).write(to: server.file("byteclub/Plans.md"))
        harness.press(key)
        await harness.waitUntil("the merge saved") { harness.app.state.message?.text.hasPrefix("Merged with") == true }
        XCTAssertEqual(try String(contentsOf: server.file("byteclub/Plans.md"), encoding: .utf8), "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)\n")
        XCTAssertEqual(harness.app.state.note?.editor.body.text, "Day 1: Paris\nDay 2: rest\nDay 3: home (ann)\n")
        XCTAssertFalse(harness.app.state.message?.text.contains("Not supported") ?? false, harness.app.state.message?.text ?? "")
        return harness
    }

    func testEditsToDifferentLinesMergeWithoutServerRevisions() async throws {
        _ = try await mergeBothEdits(with: .ctrl("s"))
    }

    /// Issue 43 §5: `Ctrl-R` on WebDAV answered "could not merge: Not supported by this remote:
    /// revisions"; it merges from the text the editor opened with, as Ctrl-S does (and a merge
    /// with no conflict is saved, as on a club server).
    func testCtrlRMergesWithoutServerRevisions() async throws {
        _ = try await mergeBothEdits(with: .ctrl("r"))
    }

    /// Issue 43 §5: history on WebDAV says, on one row, that the server keeps no earlier versions.
    func testHistorySaysInOneLineThatTheServerKeepsNoEarlierVersions() async throws {
        let harness = try await startedApp()
        harness.press(.char("H"))
        await harness.waitUntil("the history's answer") { harness.app.state.history?.error != nil }
        let screen = harness.render(width: 120, height: 36).dump()
        let rows = screen.split(separator: "\n").filter { $0.contains("keeps no earlier versions") }
        XCTAssertEqual(rows.count, 1, screen)
        XCTAssertFalse(screen.contains("Not supported"), screen)
    }
}
