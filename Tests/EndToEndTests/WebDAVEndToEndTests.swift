import Foundation
import Imaging
import TestSupport
import XCTest

/// The app on a WebDAV folder (`rclone serve webdav`, which ignores If-Match) in a real
/// terminal: the password asked at a prompt without echo, the notes list, an edit saved byte for
/// byte, a note another member changed through WebDAV meeting the conflict dialog (or the merge
/// view) with their text intact, photos with thumbnails, and an upload whose Esc cancel leaves
/// nothing on the server.
final class WebDAVEndToEndTests: XCTestCase {
    var app: AppHarness!
    var server: RcloneWebDAV!

    override func setUpWithError() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        app = try AppHarness()
        server = try RcloneWebDAV()
        let notes = server.file("byteclub")
        try FileManager.default.createDirectory(at: notes.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try Data("Day 1: Lyon\nDay 2: rest\n".utf8).write(to: notes.appendingPathComponent("Trip plans.txt"))
        try Data("Hello from WebDAV ✓\n".utf8).write(to: notes.appendingPathComponent("Welcome to the cloud.txt"))
        try makeJPEG(width: 1600, height: 400).write(to: notes.appendingPathComponent("photos/desk-panorama.jpg"))
    }

    override func tearDown() {
        app?.close()
        server?.remove()
    }

    var notes: URL { server.file("byteclub") }

    /// A JPEG with colour bands, so thumbnail cells have both a foreground and a background.
    func makeJPEG(width: Int, height: Int, noise: Bool = false) throws -> Data {
        var generator = SystemRandomNumberGenerator()
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                if noise {
                    let value = generator.next() as UInt64
                    pixels[index] = UInt8(truncatingIfNeeded: value)
                    pixels[index + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    pixels[index + 2] = UInt8(truncatingIfNeeded: value >> 16)
                } else {
                    pixels[index] = UInt8(x * 255 / width)
                    pixels[index + 1] = UInt8(y * 255 / height)
                    pixels[index + 2] = UInt8((x / 40 + y / 40) % 2 * 200)
                }
            }
        }
        return try JPEG.encode(RGBImage(width: width, height: height, pixels: pixels), quality: 90)
    }

    /// Launches on the WebDAV folder and answers the password prompt (no echo).
    @discardableResult
    func launch(_ extra: [String] = []) throws -> TmuxSession {
        let tmux = try app.launch(["--webdav", server.url.absoluteString, "--user", server.user, "--download-dir", app.downloads.path] + extra)
        tmux.waitFor("Password for \(server.user)")
        try tmux.type(server.password)
        try tmux.press("Enter")
        tmux.waitFor("Welcome to the cloud")
        XCTAssertFalse(tmux.capture().contains(server.password), "the password is never shown")
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

    func testANoteOpensAsEverAndOneLineSaysLiveEditingNeedsAClubServer() throws {
        let tmux = try launch()
        tmux.waitFor("Trip plans")
        try openByFilter(tmux, "Trip plans")
        let screen = tmux.waitFor("Live editing needs a club server")
        XCTAssertTrue(screen.contains("Day 1: Lyon"), "the note is open as ever: \(screen)")
        XCTAssertFalse(screen.contains("Live: "), screen)
        // The note still saves as on any backend.
        try tmux.press("C-e")
        try tmux.type(" — by bike")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Trip plans.txt\"")
        XCTAssertEqual(AppHarness.text(notes.appendingPathComponent("Trip plans.txt")), "Day 1: Lyon — by bike\nDay 2: rest\n")
    }

    func testEditSavedByteExactAndAChangeBySomeoneElseIsAConflict() throws {
        let tmux = try launch()
        tmux.waitFor("Trip plans")
        let file = notes.appendingPathComponent("Trip plans.txt")
        try openByFilter(tmux, "Trip plans")
        try tmux.press("C-e")
        try tmux.type(" — via Genève 你好")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Trip plans.txt\"")
        XCTAssertEqual(AppHarness.text(file), "Day 1: Lyon — via Genève 你好\nDay 2: rest\n")

        // Another member saves the same line through WebDAV while the note stays open here.
        let theirs = "Day 1: Paris\nDay 2: rest\n — by train"
        XCTAssertEqual(try server.curl(["-X", "PUT", "--data-binary", theirs, server.url.appendingPathComponent("byteclub/Trip plans.txt").absoluteString]), 0)
        try tmux.press("C-e")
        try tmux.type(" MINE")
        try tmux.press("C-s")
        // The conflict dialog, or the merge view where that has landed; never a silent overwrite.
        let screen = tmux.waitFor("the conflict shown") { $0.contains("Reload theirs") || $0.contains("Conflict 1 of") }
        XCTAssertFalse(screen.contains("Saved \"Trip plans.txt\""), screen)
        XCTAssertEqual(AppHarness.text(file), theirs, "the other member's text is intact")
    }

    func testPhotosWithThumbnailsAndACancelledUploadLeavesNothing() throws {
        let big = app.home.appendingPathComponent("big-pano.jpg")
        var data = try makeJPEG(width: 1024, height: 256, noise: true)
        data.append(Data(count: max(0, (16 << 20) - data.count)))
        try data.write(to: big)
        let tmux = try launch(["--bwlimit", "1M"])
        try tmux.type("2")
        tmux.waitFor("desk-panorama.jpg")
        // The thumbnail was made on the client from the JPEG: coloured cells on the row.
        tmux.waitFor("thumbnail cells") { _ in
            tmux.captureWithEscapes().split(separator: "\n").filter { $0.contains("48;5;") && $0.contains("38;5;") }.count >= 4
        }
        XCTAssertFalse(tmux.capture().contains("no preview"))

        try tmux.type("u")
        tmux.waitFor("Upload a photo")
        try tmux.type(big.path)
        try tmux.press("Enter")
        tmux.waitFor("Uploading big-pano.jpg")
        let percent: (String) -> Int? = { screen in
            guard let range = screen.range(of: #"\d{1,3}%"#, options: .regularExpression) else { return nil }
            return Int(screen[range].dropLast())
        }
        let first = percent(tmux.waitFor("Esc cancel · b background"))
        tmux.waitFor("the percentage to grow") { screen in
            guard let now = percent(screen), let first else { return false }
            return now > first
        }
        try tmux.press("Escape")
        tmux.waitFor("Upload cancelled")
        AppHarness.eventually("nothing left on the server") {
            !FileManager.default.fileExists(atPath: self.notes.appendingPathComponent("photos/big-pano.jpg").path)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: notes.appendingPathComponent("photos").path)
        XCTAssertEqual(names, ["desk-panorama.jpg"])
    }
}
