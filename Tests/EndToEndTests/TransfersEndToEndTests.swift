import Foundation
import Imaging
import TestSupport
import XCTest

/// Many transfers in a real terminal: three photos marked in the file chooser (with `*`, and
/// with Space) upload at once under `--bwlimit`; `T` lists them with a percentage each; one is
/// cancelled there and leaves nothing on the server, the other two arrive byte for byte.
final class TransfersEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var photos: URL { app.club.appendingPathComponent("byteclub/photos") }
    var trip: URL { app.home.appendingPathComponent("trip") }

    /// Three real JPEGs of 8 MB in ``trip`` (a small noisy picture, padded after its end marker,
    /// so each is different). Transfer hands libcurl up to 2 MB at a time, so a file must be
    /// several times that to take seconds at the test's bandwidth limit.
    func makeTrip() throws -> [URL] {
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        return try (1...3).map { n in
            let width = 256, height = 64
            let pixels = (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var data = try JPEG.encode(RGBImage(width: width, height: height, pixels: pixels), quality: 90)
            var padding = [UInt8](repeating: 0, count: (8 << 20) - data.count)
            for i in stride(from: 0, to: padding.count, by: 1024) { padding[i] = UInt8.random(in: 0...255, using: &generator) }
            data.append(contentsOf: padding)
            let url = trip.appendingPathComponent("trip-\(n).jpg")
            try data.write(to: url)
            return url
        }
    }

    /// The names in the club's photos folder, hidden files included.
    func photoNames() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: photos.path)) ?? [])
    }

    /// The Transfers panel's row of `name`: its percentage and its state, if on screen.
    func row(_ name: String, in screen: String) -> (percent: Int?, state: String)? {
        guard let line = screen.split(separator: "\n").first(where: { $0.contains(name) && !$0.contains("? help") }) else { return nil }
        let text = String(line)
        var percent: Int?
        if let range = text.range(of: #"\d{1,3}%"#, options: .regularExpression) { percent = Int(text[range].dropLast()) }
        let state = ["queued", "running", "paused", "done", "failed", "cancelled"].first { text.contains(" \($0)") } ?? ""
        return (percent, state)
    }

    /// Launches at 600 KB/s per transfer, opens the chooser on ``trip``.
    func openTripInTheChooser() throws -> TmuxSession {
        let tmux = try app.launch(["--data-dir", app.club.path, "--download-dir", app.downloads.path, "--bwlimit", "600K"])
        tmux.waitFor("Welcome to Byte Club")
        try tmux.type("2")
        tmux.waitFor("alps-sunrise.jpg")
        try tmux.type("u")
        tmux.waitFor("Upload a photo")
        try tmux.type(trip.path)
        try tmux.press("Enter")
        tmux.waitFor("trip-3.jpg")
        return tmux
    }

    /// `T`, the three rows running with a percentage each, `c` on row `index` (reached with
    /// Down presses from the first row), then the other two to completion.
    func uploadWatchAndCancel(_ tmux: TmuxSession, files: [URL], cancel index: Int) throws {
        tmux.waitFor("Uploading 3 photos")
        try tmux.type("T")
        tmux.waitFor("Esc/c cancel · p pause/resume")
        // All three at once, each with its own figure, and moving.
        tmux.waitFor("three running rows with their own percentages") { screen in
            let rows = (1...3).compactMap { self.row("trip-\($0).jpg", in: screen) }
            return rows.count == 3 && rows.allSatisfy { $0.state == "running" && ($0.percent ?? 0) >= 1 }
        }
        for _ in 0..<index { try tmux.press("Down") }
        try tmux.type("c")
        let cancelled = "trip-\(index + 1).jpg"
        tmux.waitFor("\(cancelled) cancelled") { self.row(cancelled, in: $0)?.state == "cancelled" }
        let others = (1...3).filter { $0 != index + 1 }
        tmux.waitFor("the other two done", timeout: 60) { screen in
            others.allSatisfy { self.row("trip-\($0).jpg", in: screen)?.state == "done" }
        }
        for n in others {
            XCTAssertEqual(try Data(contentsOf: photos.appendingPathComponent("trip-\(n).jpg")), try Data(contentsOf: files[n - 1]))
        }
        // Nothing of the cancelled one: no file, no partial file, no renamed copy.
        let stem = "trip-\(index + 1)"
        XCTAssertFalse(photoNames().contains { $0.contains(stem) }, "\(photoNames())\n" + (AppHarness.text(app.log) ?? "").suffix(6000))
        // The panel closes with T (Esc cancels there); the status bar no longer counts transfers.
        try tmux.type("T")
        tmux.waitFor("the panel closed") { !$0.contains("Esc/c cancel · p pause/resume") }
    }

    func testTransfersOutsideOneToSixteenIsRefused() throws {
        for bad in ["0", "17", "-2"] {
            let process = Process()
            process.executableURL = try AppHarness.binary
            process.arguments = ["--data-dir", app.club.path, "--transfers=\(bad)"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = Pipe()
            try process.run()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 64, said)
            XCTAssertTrue(said.contains("bad --transfers \(bad): use a number from 1 to 16"), said)
        }
    }

    func testStarMarksThreePhotosThatUploadAtOnceAndOneIsCancelled() throws {
        let files = try makeTrip()
        let tmux = try openTripInTheChooser()
        try tmux.type("*")
        tmux.waitFor("3 marked · Enter upload them")
        try tmux.press("Enter")
        try uploadWatchAndCancel(tmux, files: files, cancel: 1)
    }

    func testSpaceMarksThreePhotosThatUploadAtOnceAndOneIsCancelled() throws {
        let files = try makeTrip()
        let tmux = try openTripInTheChooser()
        // The list starts on "..": Down to trip-1.jpg, and each Space marks and moves on.
        try tmux.press("Down")
        try tmux.press("Space")
        tmux.waitFor("1 marked")
        try tmux.press("Space")
        try tmux.press("Space")
        tmux.waitFor(all: ["3 marked · Enter upload them", "✓ trip-2.jpg"])
        try tmux.press("Enter")
        try uploadWatchAndCancel(tmux, files: files, cancel: 2)
    }
}
