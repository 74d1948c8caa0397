import Foundation
import TestSupport
import XCTest

/// The UI on the default remote of config.toml, in a real terminal: its `folder` is the app
/// folder the notes and photos come from, its `download_dir` is where photos are saved, and the
/// status bar calls it by its name, never its URL.
final class RemoteConfigEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    func testDefaultRemoteWithItsOwnFolderAndDownloadDir() throws {
        let root = app.base.appendingPathComponent("served")
        let folder = root.appendingPathComponent("our club")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try "minutes\n".write(to: folder.appendingPathComponent("Meeting minutes.txt"), atomically: true, encoding: .utf8)
        try "not here\n".write(to: root.appendingPathComponent("byteclub/Decoy note.txt"), atomically: true, encoding: .utf8)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let photo = repository.appendingPathComponent("Resources/SampleClub/byteclub/photos/alps-sunrise.jpg")
        try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("photos/alps-sunrise.jpg"))
        let server = try ServeProcess(root: root, token: "e2e-remote-token")
        let downloads = app.base.appendingPathComponent("remote downloads")
        let config = app.base.appendingPathComponent("config/byteclub/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try """
            default = "lan"
            [remote.lan]
            type = "club"
            url = "\(server.url)"
            token_command = "echo e2e-remote-token"
            folder = "/our club"
            download_dir = "\(downloads.path)"
            """.write(to: config, atomically: true, encoding: .utf8)

        // No backend flag: the default remote.
        let tmux = try app.launch([])
        let notes = tmux.waitFor("Meeting minutes")
        XCTAssertFalse(notes.contains("Decoy note"), notes)
        let bar = OfflineClub.statusBar(notes)
        XCTAssertTrue(bar.hasPrefix(" lan "), "the remote's name: \(bar)")
        XCTAssertFalse(notes.contains(server.url), "not its URL: \(bar)")
        try tmux.type("2")
        tmux.waitFor("alps-sunrise.jpg")
        try tmux.press("Enter")
        tmux.waitFor("Downloaded \"alps-sunrise.jpg\"", timeout: 30)
        XCTAssertEqual(try Data(contentsOf: downloads.appendingPathComponent("alps-sunrise.jpg")), try Data(contentsOf: photo))
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
        withExtendedLifetime(server) {}
    }
}
