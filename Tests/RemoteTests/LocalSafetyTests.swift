import Foundation
@testable import Remote
import XCTest

/// The client's local rules without a server: the listing guard's caps, and the download
/// folder held open by descriptor (names only, links replaced and never followed).
final class LocalSafetyTests: XCTestCase {
    var base: URL!
    var folder: URL!
    var scratch: URL!

    override func setUp() {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("local-safety-\(UUID().uuidString)")
        folder = base.appendingPathComponent("downloads")
        scratch = base.appendingPathComponent("scratch")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: base)
    }

    // MARK: ListingGuard

    func testTheGuardStopsPastTheEntryCap() throws {
        var paging = ListingGuard(folder: "/big", limits: ListingLimits(maxEntries: 250))
        try paging.page(count: 100, next: "a")
        try paging.page(count: 100, next: "b")
        try paging.page(count: 50, next: nil)
        XCTAssertEqual(paging.entries, 250, "exactly the cap still lists")
        var over = ListingGuard(folder: "/big", limits: ListingLimits(maxEntries: 250))
        try over.page(count: 200, next: "a")
        XCTAssertThrowsError(try over.page(count: 100, next: "b")) { error in
            XCTAssertEqual((error as? RemoteError)?.message, "Server error: the listing of /big did not end after 250 entries; stopped")
        }
    }

    func testTheGuardStopsOnARepeatedCursorAndOnEmptyPages() throws {
        var repeated = ListingGuard(folder: "", limits: .standard)
        try repeated.page(count: 1, next: "x")
        try repeated.page(count: 1, next: "y")
        XCTAssertThrowsError(try repeated.page(count: 1, next: "x")) { error in
            XCTAssertTrue((error as? RemoteError)?.message.contains("the listing of / sent the same cursor twice") == true, "\(error)")
        }
        var empty = ListingGuard(folder: "/e", limits: ListingLimits(maxEmptyPagesInARow: 3))
        try empty.page(count: 0, next: "1")
        try empty.page(count: 0, next: "2")
        try empty.page(count: 5, next: "3")
        try empty.page(count: 0, next: "4")
        try empty.page(count: 0, next: "5")
        XCTAssertThrowsError(try empty.page(count: 0, next: "6")) { error in
            XCTAssertTrue((error as? RemoteError)?.message.contains("3 empty pages in a row") == true, "\(error)")
        }
        var last = ListingGuard(folder: "/e", limits: ListingLimits(maxEmptyPagesInARow: 1))
        XCTAssertNoThrow(try last.page(count: 0, next: nil), "an empty last page is a normal end")
    }

    func testEntriesOutsideTheFolderAreRefused() throws {
        XCTAssertNoThrow(try ListingGuard.check(RemoteEntry(kind: .file, name: "a.jpg", path: "/Club/Photos/a.jpg"), in: "/club/photos"))
        for path in ["/etc/x.jpg", "/club/other/y.jpg", "/club/photos/../../etc/x.jpg", "/club/photos"] {
            XCTAssertThrowsError(try ListingGuard.check(RemoteEntry(kind: .file, name: "x.jpg", path: path), in: "/club/photos"), path)
        }
        // path_lower is checked too: a server cannot hide an outside path there.
        let lying = RemoteEntry(kind: .file, name: "x.jpg", path: "/club/photos/x.jpg", pathLower: "/etc/x.jpg")
        XCTAssertThrowsError(try ListingGuard.check(lying, in: "/club/photos"))
    }

    // MARK: LocalFolder

    func testMoveInReplacesALinkAtTheNameInsteadOfFollowingIt() throws {
        let local = try LocalFolder(folder, create: true)
        let victim = folder.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("photo.jpg").path, withDestinationPath: victim.path)
        let download = try scratchFile("new bytes")
        try local.moveIn(download, as: "photo.jpg")
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "keep me", "the link's target is untouched")
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("photo.jpg"), encoding: .utf8), "new bytes")
        let type = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("photo.jpg").path)[.type] as? FileAttributeType
        XCTAssertEqual(type, .typeRegular)
        XCTAssertFalse(FileManager.default.fileExists(atPath: download.path), "moved, not copied")
        // The usual permissions (0666 less the umask), as any new file here gets, not the temp file's 0600.
        let usual = scratch.appendingPathComponent("usual")
        XCTAssertTrue(FileManager.default.createFile(atPath: usual.path, contents: nil))
        func mode(_ url: URL) throws -> Int? { try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int }
        XCTAssertEqual(try mode(folder.appendingPathComponent("photo.jpg")), try mode(usual))
    }

    func testUnsafeNamesNeverReachTheFileSystem() throws {
        let local = try LocalFolder(folder, create: true)
        for name in ["../escape.txt", "a/b.txt", "..", ".", "", "x\u{1B}.txt", "c1\u{9B}.txt"] {
            XCTAssertThrowsError(try local.moveIn(try scratchFile("x"), as: name), name) { error in
                XCTAssertTrue((error as? RemoteError)?.message.contains("is not a safe file name") == true, "\(error)")
            }
            XCTAssertThrowsError(try local.placeUnique("whatever", as: name), name)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: base.path)), ["downloads", "scratch"])
    }

    func testPlaceUniqueNumbersTakenNamesAndNeverReplaces() throws {
        let local = try LocalFolder(folder, create: true)
        try Data("first".utf8).write(to: folder.appendingPathComponent("pano.jpg"))
        try Data("second".utf8).write(to: folder.appendingPathComponent(".pano.jpg.part"))
        XCTAssertEqual(try local.placeUnique(".pano.jpg.part", as: "pano.jpg"), "pano (1).jpg")
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("pano.jpg"), encoding: .utf8), "first")
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("pano (1).jpg"), encoding: .utf8), "second")
        XCTAssertFalse(local.contains(".pano.jpg.part"))
        let long = String(repeating: "n", count: 251) + ".jpg"
        XCTAssertEqual(LocalFolder.numbered(long, 12).utf8.count, 255)
        XCTAssertTrue(LocalFolder.numbered(long, 12).hasSuffix(" (12).jpg"))
    }

    // MARK: A WebDAV listing's spool

    /// The spool a PROPFIND's answer goes through has no name in the folder once both its ends
    /// are open: a process killed mid-listing leaves nothing behind. It is still read whole.
    func testAListingsSpoolLeavesNoFileBehind() throws {
        let spool = try MultistatusSpool(directory: scratch, limit: .max)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), [], "named in the folder")
        let answer = Data("""
            <?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/club/a.md</d:href>            <d:propstat><d:prop><d:getcontentlength>3</d:getcontentlength></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>            </d:response></d:multistatus>
            """.utf8)
        try spool.write(answer, at: 0)
        spool.end()
        var resources: [WebDAVResource] = []
        XCTAssertNil(WebDAVMultistatus.parseArriving(spool, chunk: 7, deliver: { resources += $0 }))
        XCTAssertEqual(resources.map(\.href), ["/club/a.md"])
    }

    private func scratchFile(_ text: String) throws -> URL {
        let url = scratch.appendingPathComponent(UUID().uuidString)
        try Data(text.utf8).write(to: url)
        return url
    }
}
