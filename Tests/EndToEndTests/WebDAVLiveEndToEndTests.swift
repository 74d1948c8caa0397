import Foundation
import TestSupport
import XCTest

/// The live club on a WebDAV folder (`rclone serve webdav`), in a real terminal: another member
/// (`byteclub put`, in a process of its own) adds a note, and it shows in the Notes list with
/// no key pressed, within 15 s (the app looks every 10 s); a note open and unedited here that
/// they rewrite is reloaded in place. WebDAV names no author, so the status bar says "Someone".
final class WebDAVLiveEndToEndTests: XCTestCase {
    var app: AppHarness!
    var server: RcloneWebDAV!

    override func setUpWithError() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        app = try AppHarness()
        server = try RcloneWebDAV()
        let notes = server.file("byteclub")
        try FileManager.default.createDirectory(at: notes.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try Data("Hello from WebDAV\n".utf8).write(to: notes.appendingPathComponent("Welcome to the cloud.txt"))
    }

    override func tearDown() {
        app?.close()
        server?.remove()
    }

    /// `byteclub put FILE /byteclub/` as another member would run it, with homes of its own.
    func putAsAnotherMember(_ name: String, _ text: String, extra: [String] = []) throws {
        let bob = app.base.appendingPathComponent("bob")
        try FileManager.default.createDirectory(at: bob, withIntermediateDirectories: true)
        let local = bob.appendingPathComponent(name)
        try Data(text.utf8).write(to: local)
        let process = Process()
        process.executableURL = try AppHarness.binary
        process.arguments = ["put", local.path, "/byteclub/", "--webdav", server.url.absoluteString, "--user", server.user] + extra
        var environment = ["PATH": "/usr/bin:/bin", "HOME": bob.path, "BYTECLUB_WEBDAV_PASSWORD": server.password,
                           "TMPDIR": FileManager.default.temporaryDirectory.path]
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            environment[variable] = bob.appendingPathComponent(folder).path
        }
        process.environment = environment
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "byteclub put failed: \(message)")
    }

    func launch() throws -> TmuxSession {
        let tmux = try app.launch(["--webdav", server.url.absoluteString, "--user", server.user, "--download-dir", app.downloads.path])
        tmux.waitFor("Password for \(server.user)")
        try tmux.type(server.password)
        try tmux.press("Enter")
        tmux.waitFor("Welcome to the cloud")
        return tmux
    }

    func testAnotherMembersNewNoteShowsWithoutAKeyPressAndAnOpenNoteReloads() throws {
        let tmux = try launch()
        try putAsAnotherMember("Bob's plan.txt", "Day 1: Lyon\n")
        let added = ContinuousClock.now
        // Nothing is pressed: the list and the status bar change by themselves.
        let screen = tmux.waitFor("Bob's plan in the list", timeout: 15) { AppHarness.listed("Bob's plan", in: $0) }
        XCTAssertLessThan(ContinuousClock.now - added, .seconds(15))
        XCTAssertTrue(AppHarness.listed("Welcome to the cloud", in: screen), "the other notes stay: \(screen)")
        tmux.waitFor("Someone added \"Bob's plan\"", timeout: 5)

        // The welcome note, open and unedited here, rewritten by the other member: reloaded in place.
        try tmux.type("/")
        try tmux.type("Welcome")
        try tmux.press("Enter")
        tmux.waitFor("the filter on Welcome") { screen in
            screen.split(separator: "\n").contains { $0.contains("/ Welcome") && $0.range(of: "[^0-9]1 of [0-9]", options: .regularExpression) != nil }
        }
        try tmux.press("Enter")
        tmux.waitFor("Hello from WebDAV")
        try putAsAnotherMember("Welcome to the cloud.txt", "Hello again, rewritten by Bob\n", extra: ["--mode", "overwrite"])
        tmux.waitFor("Hello again, rewritten by Bob", timeout: 15)
        tmux.waitFor("Reloaded \"Welcome to the cloud\"", timeout: 5)
    }
}
