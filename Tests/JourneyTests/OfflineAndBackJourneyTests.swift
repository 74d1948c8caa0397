import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Journey 4, offline and back, on the club server: ray is editing when the server goes away;
/// two saves of the note, a rename and a delete wait in the outbox; he quits and starts the app
/// again with the server still away; ann changes another line meanwhile; the server returns, and
/// everything arrives, merged, with nothing lost and nothing doubled: one row per note.
///
/// The defects it holds (issue 43 §5): a start from the cache showed a note renamed or deleted
/// offline as the server had last listed it; the second save of a note that went in merged met its own
/// first change on both sides of the merge and was kept as a draft, a second row ("✎ Plans
/// (draft)" beside "Plans"); an unchanged Ctrl-S offline queued another save; and on WebDAV,
/// merges needed server revisions ("could not merge: Not supported by this remote: revisions").
final class OfflineAndBackJourneyTests: XCTestCase {
    private var club: OfflineClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    private func status(_ tmux: TmuxSession, _ figure: String, timeout: TimeInterval = 20) {
        tmux.waitFor("“\(figure)” in the status bar", timeout: timeout) { OfflineClub.statusBar($0).contains(figure) }
    }

    private func filter(_ tmux: TmuxSession, _ title: String) throws {
        try tmux.type("/")
        try tmux.type(title)
        try tmux.press("Enter")
        tmux.waitFor("the list filtered to \(title)") { $0.contains("/ \(title)") }
    }

    private func clearFilter(_ tmux: TmuxSession, _ title: String, showing row: String) throws {
        try tmux.press("Escape")
        tmux.waitFor("the filter cleared") { !$0.contains("/ \(title)") && AppHarness.listed(row, in: $0) }
    }

    /// In Plans.txt, open at its end with the server away: line 1 changed and saved, line 2
    /// changed and saved, a Ctrl-S with nothing new (queues nothing), and the editor closed.
    private func saveTwiceOffline(_ tmux: TmuxSession) throws {
        for _ in 0..<4 { try tmux.press("Up") }
        try tmux.press("C-e")
        try tmux.type(" (ray)")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Plans.txt\" in the outbox (1 waiting)")
        try tmux.press("Down")
        try tmux.press("C-e")
        try tmux.type(" by the lake")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Plans.txt\" in the outbox (2 waiting)")
        try tmux.press("C-s")
        tmux.waitFor("No changes to save in \"Plans.txt\"")
        try tmux.press("Escape")
        tmux.waitFor("Closed Plans.txt")
    }

    /// `d` twice on Obsolete with the server away (the delete waits in the outbox), then the
    /// filter cleared, `row` in the list.
    private func deleteObsoleteOffline(_ tmux: TmuxSession, showing row: String) throws {
        try filter(tmux, "Obsolete")
        try tmux.type("d")
        tmux.waitFor("Delete \"Obsolete.txt\"")
        try tmux.type("d")
        tmux.waitFor("Deleted \"Obsolete.txt\" in the outbox")
        try clearFilter(tmux, "Obsolete", showing: row)
    }

    /// Back online: Plans has one row, and no draft is left of a save the server has.
    private func assertOneRowForPlans(_ screen: String, file: StaticString = #filePath, line: UInt = #line) {
        let plansRows = screen.split(separator: "\n").filter { $0.contains("Plans") && !$0.contains("? help") }
        XCTAssertEqual(plansRows.count, 1, "one note, one row:\n\(screen)", file: file, line: line)
        XCTAssertFalse(screen.contains("(draft)"), "no draft left of a save the server has:\n\(screen)", file: file, line: line)
    }

    func testTwoSavesARenameAndADeleteOfflineArriveMergedOncePerNote() throws {
        let base = "Day 1: Lyon\nDay 2: rest\nDay 3: home\n"
        let club = try OfflineClub(notes: ["Plans.txt": base, "Old name.txt": "rename me\n", "Obsolete.txt": "delete me\n"])
        self.club = club
        var tmux = try club.launchRay()
        tmux.waitFor("the three notes") { screen in ["Plans", "Old name", "Obsolete"].allSatisfy { AppHarness.listed($0, in: screen) } }
        AppHarness.eventually("the list cached on disk", timeout: 10) { club.notesListCached() }
        try filter(tmux, "Plans")
        try tmux.press("Enter")
        tmux.waitFor("Plans open") { $0.contains("Ctrl-S saves") && $0.contains("Day 3: home") }

        // The server goes away mid-edit: a first save, more typing, a second save, and a Ctrl-S
        // with nothing new, which queues nothing.
        club.killServer()
        try saveTwiceOffline(tmux)
        try clearFilter(tmux, "Plans", showing: "Obsolete")

        // A rename and a delete.
        try filter(tmux, "Old name")
        try tmux.type("R")
        tmux.waitFor("Rename note")
        try tmux.press("C-u")
        try tmux.type("New name")
        try tmux.press("Enter")
        tmux.waitFor("Renamed \"Old name.txt\" to \"New name.txt\" in the outbox")
        try clearFilter(tmux, "Old name", showing: "New name")
        try deleteObsoleteOffline(tmux, showing: "New name")
        status(tmux, "offline · 4 waiting")

        // Ray quits and starts again with the server still away: the lists come from the cache.
        try tmux.type("q")
        tmux.waitFor(club.app.exitLine(0))
        tmux = try club.launchRay()
        // The cached list, with what was done offline shown as done: renamed, deleted.
        tmux.waitFor("the cached list") { screen in
            screen.contains("◷ Cached") && AppHarness.listed("Plans", in: screen) && AppHarness.listed("New name", in: screen)
                && !AppHarness.listed("Old name", in: screen) && !AppHarness.listed("Obsolete", in: screen)
        }
        status(tmux, "offline · 4 waiting")

        // Ann changes another line meanwhile.
        try club.writeAsAnn("Day 1: Lyon\nDay 2: rest\nDay 3: home (ann)\n", note: "Plans.txt")

        // The server comes back: everything arrives, merged, once.
        try club.startServer()
        let merged = "Day 1: Lyon (ray)\nDay 2: rest by the lake\nDay 3: home (ann)\n"
        AppHarness.eventually("every change on the server and the outbox empty", timeout: 30) {
            club.outboxItems().isEmpty && club.text(ofNote: "Plans.txt") == merged
                && club.exists("New name.txt") && !club.exists("Old name.txt") && !club.exists("Obsolete.txt")
        }
        XCTAssertEqual(club.text(ofNote: "Plans.txt"), merged, "both saves and ann's line, nothing lost: \(club.diagnostics())")
        XCTAssertEqual(club.text(ofNote: "New name.txt"), "rename me\n")
        let screen = tmux.waitFor("back online, one row per note") { screen in
            !OfflineClub.statusBar(screen).contains("offline") && AppHarness.listed("New name", in: screen)
                && !AppHarness.listed("Obsolete", in: screen)
        }
        assertOneRowForPlans(screen)
        Journey.assertNamesPeople(screen, "ray's list after the outbox went out")
    }

    /// The same journey on `rclone serve webdav`, stopped and started again on the same port
    /// and folder: WebDAV keeps no revisions, so the merge is made from the text each save was
    /// written on.
    func testOnWebDAVTooTheSavesArriveMergedOncePerNote() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let app = try AppHarness()
        var server: RcloneWebDAV? = try RcloneWebDAV()
        defer { server?.remove(); app.close() }
        let (user, password, root) = (server!.user, server!.password, server!.root)
        let port = server!.port
        let notes = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try Data("Day 1: Lyon\nDay 2: rest\nDay 3: home\n".utf8).write(to: notes.appendingPathComponent("Plans.txt"))
        try Data("delete me\n".utf8).write(to: notes.appendingPathComponent("Obsolete.txt"))
        let arguments = ["--webdav", "http://127.0.0.1:\(port)/", "--user", user]
        let environment = ["BYTECLUB_WEBDAV_PASSWORD": password]
        var tmux = try app.launch(arguments, environment: environment)
        tmux.waitFor("both notes") { AppHarness.listed("Plans", in: $0) && AppHarness.listed("Obsolete", in: $0) }
        // The list reaches the disk cache shortly after it loaded: the offline start shows it.
        let cache = app.base.appendingPathComponent("cache/byteclub")
        AppHarness.eventually("the list cached on disk", timeout: 10) {
            ((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).contains {
                FileManager.default.fileExists(atPath: cache.appendingPathComponent("\($0)/listing-notes").path)
            }
        }
        try filter(tmux, "Plans")
        try tmux.press("Enter")
        tmux.waitFor("Plans open") { $0.contains("Ctrl-S saves") && $0.contains("Day 3: home") }

        // The server goes away: two saves, a Ctrl-S with nothing new, a delete.
        server?.stop()
        // Held while it is away, so no other test's server is handed its port meanwhile.
        var hold: PortHold? = try PortHold(port: port)
        defer { hold?.release() }
        try saveTwiceOffline(tmux)
        try clearFilter(tmux, "Plans", showing: "Obsolete")
        try deleteObsoleteOffline(tmux, showing: "Plans")
        status(tmux, "offline · 3 waiting")

        // Ray starts again with the server still away; ann changes another line meanwhile.
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
        tmux = try app.launch(arguments, environment: environment)
        tmux.waitFor("the cached list") { $0.contains("◷ Cached") && AppHarness.listed("Plans", in: $0) }
        status(tmux, "offline · 3 waiting")
        try Data("Day 1: Lyon\nDay 2: rest\nDay 3: home (ann)\n".utf8).write(to: notes.appendingPathComponent("Plans.txt"))

        // The server comes back on the same port and folder.
        hold?.release()
        hold = nil
        server = try RcloneWebDAV(user: user, password: password, root: root, port: port)
        let merged = "Day 1: Lyon (ray)\nDay 2: rest by the lake\nDay 3: home (ann)\n"
        AppHarness.eventually("the saves merged on the server and the delete done", timeout: 40) {
            AppHarness.text(notes.appendingPathComponent("Plans.txt")) == merged
                && !FileManager.default.fileExists(atPath: notes.appendingPathComponent("Obsolete.txt").path)
        }
        XCTAssertEqual(AppHarness.text(notes.appendingPathComponent("Plans.txt")), merged, "both saves and ann's line")
        let screen = tmux.waitFor("back online, one row per note", timeout: 40) { screen in
            !OfflineClub.statusBar(screen).contains("offline") && !OfflineClub.statusBar(screen).contains("waiting")
                && AppHarness.listed("Plans", in: screen) && !AppHarness.listed("Obsolete", in: screen)
        }
        assertOneRowForPlans(screen)
        XCTAssertFalse(screen.contains("Not supported"), screen)
    }
}
