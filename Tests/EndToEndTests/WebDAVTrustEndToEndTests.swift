import Foundation
import TestSupport
import XCTest

/// The app on WebDAV where trust used to break, in a real terminal: a server that writes
/// PROPFIND's ETags unquoted while GET quotes them (``WebDAVProxy`` in front of `rclone serve
/// webdav`) saving an unchanged note without a conflict; a start with the server down coming up
/// from the cache and listing again when it is back; no password at the prompt exiting 5.
final class WebDAVTrustEndToEndTests: XCTestCase {
    var app: AppHarness!
    var server: RcloneWebDAV!
    var proxy: WebDAVProxy?

    override func setUpWithError() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        app = try AppHarness()
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: notes.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try Data("Day 1: Lyon\nDay 2: rest\n".utf8).write(to: notes.appendingPathComponent("Trip plans.txt"))
        try Data("Hello from WebDAV ✓\n".utf8).write(to: notes.appendingPathComponent("Welcome to the cloud.txt"))
    }

    override func tearDown() {
        app?.close()
        proxy?.stop()
        server?.remove()
    }

    var notes: URL { server.file("byteclub") }

    /// Launches on `url` and answers the password prompt (no echo); `after` is the earlier
    /// run's exit line, whose prompt is still on the shell's screen and must not be taken
    /// for this run's.
    @discardableResult
    func launch(_ url: URL, after previous: String? = nil) throws -> TmuxSession {
        let tmux = try app.launch(["--webdav", url.absoluteString, "--user", server.user, "--download-dir", app.downloads.path])
        tmux.waitFor("this run's password prompt") { screen in
            let since = previous.flatMap { screen.range(of: $0, options: .backwards) }.map { String(screen[$0.upperBound...]) } ?? screen
            return since.contains("Password for \(self.server.user)")
        }
        try tmux.type(server.password)
        try tmux.press("Enter")
        return tmux
    }

    func openByFilter(_ tmux: TmuxSession, _ title: String) throws {
        try tmux.type("/")
        try tmux.type(title)
        try tmux.press("Enter")
        tmux.waitFor("the filter on \(title)") { screen in
            screen.split(separator: "\n").contains { $0.contains("/ \(title)") && $0.range(of: "[^0-9]1 of [0-9]", options: .regularExpression) != nil }
        }
        try tmux.press("Enter")
        tmux.waitFor("Ctrl-S saves")
    }

    func testAnUnchangedNoteSavesWithoutAConflictWhenPROPFINDWritesETagsUnquoted() throws {
        let proxy = try WebDAVProxy(upstreamPort: server.port, etagForm: .unquoted)
        self.proxy = proxy
        let tmux = try launch(proxy.url)
        tmux.waitFor("Trip plans")
        try openByFilter(tmux, "Trip plans")
        try tmux.press("C-e")
        try tmux.type(" via Genève")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        let screen = tmux.waitFor("the save's outcome") { $0.contains("Saved \"Trip plans.txt\"") || $0.contains("Reload theirs") || $0.contains("Conflict") }
        XCTAssertTrue(screen.contains("Saved \"Trip plans.txt\""), "an unchanged note saved, no conflict:\n\(screen)")
        XCTAssertEqual(AppHarness.text(notes.appendingPathComponent("Trip plans.txt")), "Day 1: Lyon via Genève\nDay 2: rest\n")
        XCTAssertGreaterThan(proxy.rewrites, 0, "the app read ETags in the unquoted form")

        // And again from the rev that save left: still no conflict.
        try tmux.press("C-e")
        try tmux.type("!")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        tmux.waitFor("the second save's outcome") { !$0.contains("[+]") || $0.contains("Reload theirs") }
        AppHarness.eventually("the second save on disk") {
            AppHarness.text(self.notes.appendingPathComponent("Trip plans.txt")) == "Day 1: Lyon via Genève!\nDay 2: rest\n"
        }
        XCTAssertFalse(tmux.capture().contains("Reload theirs"))
        let names = try FileManager.default.contentsOfDirectory(atPath: notes.path).sorted()
        XCTAssertEqual(names, ["Trip plans.txt", "Welcome to the cloud.txt", "photos"], "no temporary upload left")
    }

    func testAStartWithTheServerDownComesUpFromTheCache() throws {
        var tmux = try launch(server.url)
        tmux.waitFor("Trip plans")
        AppHarness.eventually("the list cached on disk", timeout: 10) { self.notesListCached() }
        try tmux.type("q")
        let firstExit = app.exitLine(0)
        tmux.waitFor(firstExit)

        // The server goes away; the app starts anyway, from the cache.
        let port = server.port, root = server.root, user = server.user, password = server.password
        server.stop()
        tmux = try launch(URL(string: "http://127.0.0.1:\(port)/")!, after: firstExit)
        let cached = tmux.waitFor("the cached list") { screen in
            screen.contains("offline") && AppHarness.listed("Trip plans", in: screen) && AppHarness.listed("Welcome to the cloud", in: screen)
        }
        XCTAssertFalse(cached.contains("cannot open the club"), cached)

        // Back on the same port, with a note added meanwhile: once the app has seen the server
        // answer (the outbox's probe), a refresh lists it, through the store made offline.
        try Data("Added while you were away\n".utf8).write(to: notes.appendingPathComponent("While away.txt"))
        let again = try RcloneWebDAV(user: user, password: password, root: root, port: port)
        defer { again.stop() }
        AppHarness.eventually("the app seeing the server again", timeout: 30) {
            (AppHarness.text(self.app.log) ?? "").contains("the server answers again")
        }
        try tmux.type("r")
        tmux.waitFor("the new note listed", timeout: 20) { AppHarness.listed("While away", in: $0) && !$0.contains("Offline:") }
    }

    func testNoPasswordAtThePromptExits5() throws {
        let tmux = try app.launch(["--webdav", server.url.absoluteString, "--user", server.user])
        tmux.waitFor("Password for \(server.user)")
        try tmux.press("Enter")
        let screen = tmux.waitFor(app.exitLine(5))
        XCTAssertTrue(screen.contains("no password given for \(server.user)"), screen)
    }

    /// Whether the app has written the Notes tab's list to its disk cache.
    private func notesListCached() -> Bool {
        let cache = app.base.appendingPathComponent("cache/byteclub")
        let clubs = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
        return clubs.contains { FileManager.default.fileExists(atPath: cache.appendingPathComponent("\($0)/listing-notes").path) }
    }
}
