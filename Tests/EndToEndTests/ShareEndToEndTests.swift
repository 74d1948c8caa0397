import Foundation
import TestSupport
import XCTest

/// `s` in a real terminal: a share link to the selected note, then to a photo, shown in a
/// dialog and copied with OSC 52 into tmux's paste buffer (`set-clipboard on`); the link itself
/// works for `curl` with no token.
final class ShareEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    static let link = #"http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_-]{24}/[A-Za-z0-9%._~-]+"#

    func testSharingANoteAndAPhotoShowsTheLinkAndCopiesIt() throws {
        let tmux = try app.launch()
        // tmux takes OSC 52 from the app into a paste buffer only with this on (its default,
        // `external`, ignores it).
        _ = try tmux.run(["set-option", "-s", "set-clipboard", "on"])
        tmux.waitFor("Welcome to Byte Club")

        try tmux.type("s")
        let screen = tmux.waitFor("the link shown and copied") { $0.contains("Share link") && $0.contains("Link copied") }
        let url = try XCTUnwrap(screen.range(of: Self.link, options: .regularExpression).map { String(screen[$0]) }, screen)
        AppHarness.eventually("the link in tmux's paste buffer") { (try? tmux.run(["show-buffer"]))?.trimmingCharacters(in: .newlines) == url }
        // The link opens exactly the note's bytes, for anyone.
        let name = try XCTUnwrap(url.split(separator: "/").last.flatMap { String($0).removingPercentEncoding })
        XCTAssertTrue(name.hasSuffix(".txt"), name)
        XCTAssertEqual(try Self.curl(url), try Data(contentsOf: app.club.appendingPathComponent("byteclub/" + name)))

        try tmux.press("Enter")
        tmux.waitFor("the dialog closed") { !$0.contains("Share link") }
        try tmux.type("2")
        tmux.waitFor(".jpg")
        try tmux.type("s")
        let photoScreen = tmux.waitFor("the photo's link") { screen in
            screen.contains("Share link") && screen.range(of: Self.link, options: .regularExpression).map { screen[$0].hasSuffix(".jpg") } == true
        }
        let photoURL = try XCTUnwrap(photoScreen.range(of: Self.link, options: .regularExpression).map { String(photoScreen[$0]) })
        AppHarness.eventually("the photo's link in tmux's paste buffer") { (try? tmux.run(["show-buffer"]))?.trimmingCharacters(in: .newlines) == photoURL }
        let photo = try XCTUnwrap(photoURL.split(separator: "/").last.flatMap { String($0).removingPercentEncoding })
        XCTAssertEqual(try Self.curl(photoURL), try Data(contentsOf: app.club.appendingPathComponent("byteclub/photos/" + photo)))
        try tmux.press("Enter")
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
    }

    static func curl(_ url: String) throws -> Data {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-f", "--max-time", "10", url]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "curl \(url)")
        return data
    }
}
