import Foundation
import TestSupport
import XCTest

/// The app's start on a WebDAV folder (issue 43 §5). A server that accepts and never answers
/// left the terminal blank for the whole stall limit (10 s) while the app asked how the folder
/// signs in: it now says at once that it is connecting, and draws its first frame once
/// `Backend.probeLimit` (2 s) has passed, starting from its cache as for a server that is away.
final class WebDAVStartEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app?.close()
    }

    func testTheFirstFrameComesWithinSecondsAndSaysItIsLoading() throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let started = Date()
        let tmux = try app.launch(["--webdav", "http://127.0.0.1:\(silent.port)/", "--user", "ann"],
                                  environment: ["BYTECLUB_WEBDAV_PASSWORD": "secret"])
        tmux.waitFor("connecting to the WebDAV folder")
        tmux.waitFor(all: ["Notes", "PanoPhotos", "webdav"], timeout: 8)
        let took = Date().timeIntervalSince(started)
        XCTAssertLessThan(took, 8, "the first frame after \(took) s")
        XCTAssertEqual(tmux.currentCommand(), "byteclub", "still running")
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
    }

    /// Issue 43 §5: a refused WebDAV password at the app's start exited 1 ("the token was
    /// refused (log in again?)"); it says the password was refused, names where it comes from,
    /// and exits 5, as `byteclub ls` does.
    func testARefusedPasswordSaysSoAndExits5() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        defer { server.remove() }
        let tmux = try app.launch(["--webdav", server.url.absoluteString, "--user", server.user],
                                  environment: ["BYTECLUB_WEBDAV_PASSWORD": "not-" + server.password])
        let screen = tmux.waitFor(app.exitLine(5))
        XCTAssertTrue(screen.contains("refused the password"), screen)
        XCTAssertTrue(screen.contains("password_command"), screen)
        XCTAssertFalse(screen.contains("log in again"), screen)
    }
}
