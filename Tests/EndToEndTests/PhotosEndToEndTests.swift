import Foundation
import Imaging
import TestSupport
import XCTest

/// The PanoPhotos tab in a real terminal: thumbnails in color, uploads with the modal (cancel,
/// completion, background) and a download paused, quit, and resumed in a new run. The upload
/// tests run with `--bwlimit 1M` so the modal stays up for seconds.
final class PhotosEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var photos: URL { app.club.appendingPathComponent("byteclub/photos") }

    /// A real JPEG (noise, which compresses badly), padded after its end marker to `bytes`.
    func makeJPEG(named name: String, bytes: Int) throws -> URL {
        var generator = SystemRandomNumberGenerator()
        let width = 2048, height = 512
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in stride(from: 0, to: pixels.count, by: 8) {
            let value = generator.next() as UInt64
            for k in 0..<min(8, pixels.count - i) { pixels[i + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
        }
        var data = try JPEG.encode(RGBImage(width: width, height: height, pixels: pixels), quality: 90)
        if data.count < bytes {
            // Decoders stop at the end marker; the padding makes the size without changing the picture.
            var padding = [UInt8](repeating: 0, count: bytes - data.count)
            for i in stride(from: 0, to: padding.count, by: 4096) { padding[i] = UInt8(truncatingIfNeeded: generator.next() as UInt64) }
            data.append(contentsOf: padding)
        }
        let url = app.home.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// The names in the club's photos folder (what a member sees), hidden files included.
    func photoNames() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: photos.path)) ?? [])
    }

    /// The first "NN%" on the screen.
    func percent(_ screen: String) -> Int? {
        guard let range = screen.range(of: #"\d{1,3}%"#, options: .regularExpression) else { return nil }
        return Int(screen[range].dropLast())
    }

    func openPhotos(_ tmux: TmuxSession) {
        tmux.waitFor("Welcome to Byte Club")
        try? tmux.type("2")
        tmux.waitFor("alps-sunrise.jpg")
    }

    /// `u`, then the path typed into the chooser.
    func startUpload(_ tmux: TmuxSession, _ file: URL) throws {
        try tmux.type("u")
        tmux.waitFor("Upload a photo")
        try tmux.type(file.path)
        try tmux.press("Enter")
        tmux.waitFor("Uploading \(file.lastPathComponent)")
    }

    func testUploadShowsProgressAndEscCancelsLeavingNothing() throws {
        let file = try makeJPEG(named: "big-pano.jpg", bytes: 20 << 20)
        let tmux = try app.launch(["--data-dir", app.club.path, "--download-dir", app.downloads.path, "--bwlimit", "1M"])
        openPhotos(tmux)
        let before = photoNames()
        try startUpload(tmux, file)
        let screen = tmux.waitFor("Esc cancel · b background")
        let first = percent(screen)
        tmux.waitFor("the percentage to grow") { screen in
            guard let now = self.percent(screen), let first else { return false }
            return now > first
        }

        // How fast Esc cancels is a benchmark figure (transfer-bench's cancel → callback), not
        // a timed test: here it must cancel, close the modal and leave nothing behind.
        try tmux.press("Escape")
        tmux.waitFor("the modal to close") { !$0.contains("Esc cancel · b background") }
        tmux.waitFor("Upload cancelled")
        // Nothing new in the folder: no file, no partial file.
        XCTAssertEqual(photoNames(), before)
        // Loaded again, the list has no big-pano either. The photos were on screen all along, so
        // the refresh's end is read from the log, and the list after it from a filter typed after
        // it: keys wait for the UI queue, where the log line is written just before the list changes.
        let loads = app.loads(of: "photos")
        try tmux.type("r")
        AppHarness.eventually("the photos loaded again") { self.app.loads(of: "photos") > loads }
        try tmux.type("/big-pano")
        tmux.waitFor("no big-pano in the list") { screen in
            screen.split(separator: "\n").contains { $0.contains("/ big-pano") && $0.range(of: "[^0-9]0 of [0-9]", options: .regularExpression) != nil }
        }
    }

    func testUploadToCompletionIsByteIdenticalAndListed() throws {
        let file = try makeJPEG(named: "desk-of-ray.jpg", bytes: 3 << 20)
        let tmux = try app.launch(["--data-dir", app.club.path, "--download-dir", app.downloads.path, "--bwlimit", "1M"])
        openPhotos(tmux)
        try startUpload(tmux, file)
        tmux.waitFor("Uploaded \"desk-of-ray.jpg\"", timeout: 30)
        XCTAssertEqual(try Data(contentsOf: photos.appendingPathComponent("desk-of-ray.jpg")), try Data(contentsOf: file))
        // In the list (loaded again after the upload), not only in the status bar's "Uploaded …".
        tmux.waitFor("desk-of-ray.jpg listed") { AppHarness.listed("desk-of-ray.jpg", in: $0) }
    }

    func testUploadInTheBackgroundWhileEditingANote() throws {
        let file = try makeJPEG(named: "background.jpg", bytes: 4 << 20)
        let tmux = try app.launch(["--data-dir", app.club.path, "--download-dir", app.downloads.path, "--bwlimit", "1M"])
        openPhotos(tmux)
        try startUpload(tmux, file)
        tmux.waitFor("Esc cancel · b background")
        try tmux.type("b")
        tmux.waitFor("the modal gone, progress in the status bar") { !$0.contains("Esc cancel · b background") && $0.contains("↑") }

        // Write a note meanwhile.
        try tmux.type("1")
        tmux.waitFor("Welcome to Byte Club")
        try tmux.type("n")
        try tmux.type("While uploading")
        try tmux.press("Enter")
        try tmux.type("typing goes on")
        tmux.waitFor("typing goes on")
        tmux.waitFor("Uploaded \"background.jpg\"", timeout: 30)
        XCTAssertEqual(try Data(contentsOf: photos.appendingPathComponent("background.jpg")), try Data(contentsOf: file))
        // The note's text is untouched by the upload's messages.
        XCTAssertTrue(tmux.capture().contains("typing goes on"))
    }

    /// Seeds the club with a first run, adds `huge.jpg` of `bytes` to it, and starts a run at
    /// 1 MB/s with that photo selected. Returns the photo's source and the run's arguments.
    func startWithAHugePhoto(bytes: Int) throws -> (source: URL, arguments: [String], tmux: TmuxSession) {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
        let source = try makeJPEG(named: "huge.jpg", bytes: bytes)
        try FileManager.default.copyItem(at: source, to: photos.appendingPathComponent("huge.jpg"))
        let arguments = ["--data-dir", app.club.path, "--download-dir", app.downloads.path, "--bwlimit", "1M"]
        try app.launch(arguments)
        openPhotos(tmux)
        try selectHuge(tmux)
        return (source, arguments, tmux)
    }

    func testDownloadPausedQuitAndResumedInANewRun() throws {
        var (source, arguments, tmux) = try startWithAHugePhoto(bytes: 12 << 20)
        try tmux.press("Enter")
        tmux.waitFor("Downloading huge.jpg")
        tmux.waitFor("a few percent") { (self.percent($0) ?? 0) >= 8 }
        try tmux.press("Escape")
        tmux.waitFor("Download paused, Enter resumes")
        // The row's "paused 42% · Enter resumes", not the message's "paused,".
        tmux.waitFor("the paused row") { $0.contains("paused ") }

        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
        tmux = try resumeInANewRun(arguments, source: source)
        let log = AppHarness.text(app.log) ?? ""
        XCTAssertTrue(log.contains("range=bytes="), "the resumed download asked for a range:\n\(log.suffix(2000))")
        // The paused marker is gone with the resume data.
        tmux.waitFor("no paused row") { !$0.contains("paused ") }
    }

    func testQuittingDuringADownloadPausesIt() throws {
        let (source, arguments, tmux) = try startWithAHugePhoto(bytes: 8 << 20)
        try tmux.press("Enter")
        tmux.waitFor("a few percent") { (self.percent($0) ?? 0) >= 5 }
        try tmux.type("b")
        try tmux.type("q")
        tmux.waitFor("Quit byteclub?")
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
        _ = try resumeInANewRun(arguments, source: source)
    }

    /// A new run shows huge.jpg paused, resumes it with Enter, and ends with the same bytes.
    func resumeInANewRun(_ arguments: [String], source: URL) throws -> TmuxSession {
        let tmux = try app.launch(arguments)
        openPhotos(tmux)
        tmux.waitFor("paused ")
        try selectHuge(tmux)
        try tmux.press("Enter")
        tmux.waitFor("Resuming at")
        tmux.waitFor("Downloaded \"huge.jpg\"", timeout: 30)
        XCTAssertEqual(try Data(contentsOf: app.downloads.appendingPathComponent("huge.jpg")), try Data(contentsOf: source))
        return tmux
    }

    /// Filters the photos down to huge.jpg.
    func selectHuge(_ tmux: TmuxSession) throws {
        try tmux.type("/")
        try tmux.type("huge")
        try tmux.press("Enter")
        tmux.waitFor("1 of")
    }

    func testThumbnailsAreColoredCells() throws {
        let tmux = try app.launch()
        openPhotos(tmux)
        // 256-color backgrounds and foregrounds in the thumbnail cells: ESC[38;5;N and ESC[48;5;N.
        tmux.waitFor("256-color thumbnail cells") { _ in
            let lines = tmux.captureWithEscapes().split(separator: "\n")
            return lines.filter { $0.contains("48;5;") && $0.contains("38;5;") }.count >= 8
        }
        let plain = tmux.capture()
        XCTAssertFalse(plain.contains("no preview"), plain)
    }

    func testThumbnailsUseTruecolorOnADirectColorTerminal() throws {
        guard FileManager.default.fileExists(atPath: "/usr/share/terminfo/x/xterm-direct")
            || FileManager.default.fileExists(atPath: "/lib/terminfo/x/xterm-direct") else {
            try Requirement.tool(false, "no xterm-direct terminfo (apt-get install ncurses-term, or make deps)")
            return
        }
        let tmux = try app.launch(term: "xterm-direct")
        openPhotos(tmux)
        // 24-bit colors: ESC[38;2;R;G;B and ESC[48;2;R;G;B.
        tmux.waitFor("truecolor thumbnail cells") { _ in
            let lines = tmux.captureWithEscapes().split(separator: "\n")
            return lines.filter { $0.contains("48;2;") && $0.contains("38;2;") }.count >= 8
        }
    }
}
