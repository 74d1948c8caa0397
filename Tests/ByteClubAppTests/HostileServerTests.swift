import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// The client against a hostile server (``HostileServer``): the app's downloads never leave the
/// download folder, names with escapes never reach the screen raw, listings that never end stop
/// with an error, and answers naming paths outside the folder asked for are refused.
@MainActor
final class HostileServerTests: XCTestCase {
    var server: HostileServer?
    var base: URL!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        server?.stop()
        server = nil
        try? FileManager.default.removeItem(at: base)
    }

    /// Names the server gives its photos, and what the app must save them as.
    static let photos: [(photo: HostileServer.Photo, saved: String)] = [
        (.init(name: "../../evil.jpg", path: "/byteclub/photos/evil.jpg"), "evil.jpg"),
        (.init(name: "../../../../../../etc/x.jpg", path: "/byteclub/photos/x.jpg"), "x.jpg"),
        (.init(name: "..\\..\\win.jpg", path: "/byteclub/photos/win.jpg"), "win.jpg"),
        (.init(name: "sub/dir/nested.jpg", path: "/byteclub/photos/nested.jpg"), "nested.jpg"),
        (.init(name: "\u{1B}]0;PWNED\u{07}.jpg", path: "/byteclub/photos/pwned.jpg"), "_]0;PWNED_.jpg"),
        (.init(name: "c1\u{9B}2J\u{85}\u{1B}]52;c;aGk=\u{07}.jpg", path: "/byteclub/photos/c1.jpg"), "c1_2J__]52;c;aGk=_.jpg"),
        (.init(name: "a/evil.jpg", path: "/byteclub/photos/evil-again.jpg"), "evil (1).jpg"),
    ]

    func testDownloadsNeverLeaveTheDownloadFolder() async throws {
        let server = try await HostileServer(photos: Self.photos.map(\.photo))
        self.server = server
        // Deep enough that ../../evil.jpg would land inside the tree, where the listing sees it.
        let downloads = base.appendingPathComponent("a/b/downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let outsideTarget = URL(fileURLWithPath: "/etc/x.jpg")
        let outsideExisted = FileManager.default.fileExists(atPath: outsideTarget.path)
        let before = FileTree.list(base)

        let base = self.base!
        let harness = Harness(store: server.store()) { configuration in
            configuration.downloadDirectory = downloads
            configuration.pausedDownloads = PausedDownloads(directory: base.appendingPathComponent("resume"))
            configuration.thumbnailsDirectory = base.appendingPathComponent("thumbnails")
            configuration.uploadStartDirectory = base
        }
        await harness.start()
        harness.press(.char("2"))
        XCTAssertEqual(harness.app.state.photos.entries.count, Self.photos.count, harness.app.state.message?.text ?? "")
        assertNoControls(harness.render(width: 120, height: 36), "the photos tab")

        for index in Self.photos.indices {
            harness.press(.enter)
            let count = index + 1
            await harness.waitUntil("download \(count)") {
                harness.app.state.transfers.running == 0 && Self.visibleFiles(downloads).count == count
            }
            if index == 0 {
                let message = harness.app.state.message?.text ?? ""
                XCTAssertTrue(message.hasPrefix("Downloaded") && message.contains("renamed"), "the status bar says the name changed: \(message)")
            }
            assertNoControls(harness.render(width: 120, height: 36), "the screen after download \(count)")
            harness.press(.down)
        }

        // Only files directly in the download folder are new: no stray folders, no part files,
        // nothing anywhere else in the whole tree.
        let (changed, gone) = FileTree.changes(before, FileTree.list(base))
        XCTAssertEqual(gone, [])
        let prefix = "a/b/downloads/"
        let outside = changed.filter { !$0.hasPrefix(prefix) && !$0.hasPrefix("thumbnails") }
        XCTAssertEqual(outside, [], "written outside the download folder")
        let saved = changed.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        XCTAssertEqual(Set(saved), Set(Self.photos.map(\.saved)))
        for name in saved {
            XCTAssertEqual(try Data(contentsOf: downloads.appendingPathComponent(name)), HostileServer.photoBytes, name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: base.appendingPathComponent("a/evil.jpg").path))
        if !outsideExisted { XCTAssertFalse(FileManager.default.fileExists(atPath: outsideTarget.path), "/etc/x.jpg was written") }
        XCTAssertEqual(server.counts.downloads, Self.photos.count)
    }

    func testNamesWithEscapesAreDrawnAsReplacementCharacters() async throws {
        let server = try await HostileServer(photos: Self.photos.map(\.photo))
        self.server = server
        let harness = Harness(store: server.store())
        await harness.start()
        XCTAssertEqual(harness.app.state.notes.entries.count, HostileServer.terminalNames.count)
        let notes = harness.render(width: 120, height: 36)
        assertNoControls(notes, "the notes tab")
        XCTAssertTrue((0..<36).contains { notes.line($0).contains("\u{FFFD}]0;PWNED\u{FFFD}") }, "shown, as U+FFFD")
    }

    func testAPhotoOutsideTheFolderAskedForFailsTheListing() async throws {
        for outside in ["/etc/x.jpg", "/byteclub/other/y.jpg", "/byteclub/photos/../../etc/z.jpg"] {
            let server = try await HostileServer(photos: [.init(name: "fine.jpg", path: "/byteclub/photos/fine.jpg"),
                                                          .init(name: "x.jpg", path: outside)])
            defer { server.stop() }
            let harness = Harness(store: server.store())
            await harness.start()
            harness.press(.char("2"))
            XCTAssertEqual(harness.app.state.photos.entries, [], outside)
            let message = harness.app.state.photos.error ?? ""
            XCTAssertTrue(message.contains("Could not load photos") && message.contains("not inside"), message)
        }
    }

    func testEndlessListingsStopWithAnError() async throws {
        let server = try await HostileServer()
        self.server = server
        let store = server.store(maxEntries: 1000)

        await assertFails(containing: "did not end after 1000 entries") { () async throws(RemoteError) in _ = try await store.list("/endless") }
        // 100 entries a page: stopped on the page past the cap (the 11th). The next page is asked
        // for while one is decoded (DropboxStore+Pages), so under load the 12th may have been
        // asked for already; none after it.
        XCTAssertTrue((11...12).contains(server.counts.listPages), "\(server.counts.listPages) pages asked for")

        await assertFails(containing: "did not end after 1000 entries") { () async throws(RemoteError) in
            _ = try await store.search(in: "/endless", extensions: ["jpg"])
        }
        XCTAssertEqual(server.counts.searchPages, 11)

        await assertFails(containing: "same cursor twice") { () async throws(RemoteError) in _ = try await store.list("/same-cursor") }
        let pagesBefore = server.counts.listPages
        await assertFails(containing: "empty pages in a row") { () async throws(RemoteError) in _ = try await store.list("/empty-pages") }
        // As above: a page asked for ahead may land too, but never two.
        let emptyPages = server.counts.listPages - pagesBefore
        XCTAssertTrue((ListingLimits.standard.maxEmptyPagesInARow...ListingLimits.standard.maxEmptyPagesInARow + 1).contains(emptyPages),
                      "\(emptyPages) pages asked for")

        await assertFails(containing: "with /etc/x.jpg, which is not inside it") { () async throws(RemoteError) in _ = try await store.list("/outside") }
        XCTAssertEqual(ListingLimits.standard.maxEntries, 1_000_000, "the production cap stays sane")
    }

    func testTheAppStopsAnEndlessPhotoSearch() async throws {
        let server = try await HostileServer(endlessPhotos: true)
        self.server = server
        let harness = Harness(store: server.store(maxEntries: 2000))
        await harness.start()
        // Counted before the tab is shown: showing a tab whose load failed may load it again.
        XCTAssertEqual(server.counts.searchPages, 21, "stopped on the first page past the cap")
        harness.press(.char("2"))
        let message = harness.app.state.photos.error ?? ""
        XCTAssertTrue(message.contains("Could not load photos") && message.contains("did not end after 2000 entries"), message)
        XCTAssertEqual(harness.app.state.photos.entries, [])
        assertNoControls(harness.render(width: 120, height: 36), "the photos tab")
    }

    func testErrorBodiesAreEscapedInMessages() async throws {
        let server = try await HostileServer()
        self.server = server
        do {
            _ = try await server.store().list("/error-body")
            XCTFail("expected an error")
        } catch {
            XCTAssertFalse(error.message.unicodeScalars.contains(where: TerminalSafe.isControl), error.message)
            XCTAssertTrue(error.message.contains(#"\x1b]0;PWNED\x07\x1b[2J\x9b31m"#), error.message)
        }
    }

    // MARK: Helpers

    private static func visibleFiles(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }
    }

    private func assertNoControls(_ canvas: GridCanvas, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for y in 0..<canvas.size.height {
            for x in 0..<canvas.size.width {
                let text = canvas.cell(x: x, y: y).text
                XCTAssertFalse(text.unicodeScalars.contains(where: TerminalSafe.isControl), "\(what): a control character at \(x),\(y)",
                               file: file, line: line)
            }
        }
    }

    private func assertFails(containing text: String, file: StaticString = #filePath, line: UInt = #line,
                             _ body: () async throws(RemoteError) -> Void) async {
        do {
            try await body()
            XCTFail("expected an error saying \(text)", file: file, line: line)
        } catch {
            XCTAssertTrue(error.message.contains(text), error.message, file: file, line: line)
        }
    }
}
