import Foundation
import TestSupport
import XCTest

/// A WebDAV server that accepts and never answers (issue 43 §5): the terminal stayed blank for
/// the whole stall limit (10 s) while the app asked how the folder signs in. It now says at once
/// that it is connecting, and draws its first frame once `Backend.probeLimit` (2 s) has passed,
/// starting from its cache as for a server that is away.
final class StalledWebDAVEndToEndTests: XCTestCase {
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
}
