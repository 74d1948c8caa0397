import Foundation
import TestSupport
import XCTest

/// Journey 5, share and look: ann shares a note that shows a photo from the app; a stranger's
/// browser (headless Chromium) opens the link and sees the note as a page with its photo; bob
/// lists the club's links from a script, in the path's own case; ann revokes the link, and the
/// browser then gets nothing of the note.
///
/// The defect it holds (issue 43 §4): `share --list --json` gave `path_display` in lower case
/// (the server's `path_lower`), so a script matching the app's names missed it; and (§1) the
/// listing named no one for a member added by `members add`.
final class ShareAndLookJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    static let link = #"http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_-]{24}/[A-Za-z0-9%._~-]+"#

    func testANoteWithAPhotoIsSharedOpenedInABrowserAndRevoked() throws {
        // Plain HTTP: a browser would refuse the club's own certificate, as it should.
        let club = try JourneyClub(notes: ["Desk setup.md": "# Desk setup\n\nMy corner of the club.\n\n![the desk](photos/desk.jpg)\n"], tls: false)
        self.club = club
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let desk = try Data(contentsOf: repository.appendingPathComponent("Resources/SampleClub/byteclub/photos/desk-at-night.jpg"))
        try FileManager.default.createDirectory(at: club.notes.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try desk.write(to: club.notes.appendingPathComponent("photos/desk.jpg"))
        let ann = try club.invite("ann")
        let bob = try club.invite("bob", role: "reader")

        // Ann shares the note from the app: the link is shown.
        let screen = try ann.launch([])
        Journey.see(screen, ["Desk setup"], "ann's notes")
        try screen.type("s")
        _ = Journey.see(screen, ["Share link"], "the share dialog")
        // The link itself, not only the dialog's title: a frame caught while it was being drawn
        // (a loaded CI run) had the title and not yet the link.
        let shown = screen.waitFor("the link in the share dialog") { $0.range(of: Self.link, options: .regularExpression) != nil }
        let url = try XCTUnwrap(shown.range(of: Self.link, options: .regularExpression).map { String(shown[$0]) }, shown)
        XCTAssertTrue(url.hasSuffix("/Desk%20setup.md"), url)
        try screen.press("Enter")

        // A stranger's browser sees the note as a page, its photo served through the link.
        let page = try Chromium.dumpDOM(url)
        XCTAssertTrue(page.contains("<h1>Desk setup</h1>"), page)
        XCTAssertTrue(page.contains("My corner of the club."), page)
        let source = try XCTUnwrap(page.range(of: #"<img[^>]*src="([^"]+)""#, options: .regularExpression).map { String(page[$0]) }, page)
        let src = try XCTUnwrap(source.range(of: #"src="([^"]+)""#, options: .regularExpression).map { String(source[$0].dropFirst(5).dropLast()) })
        let imageURL = src.hasPrefix("http") ? src : (URL(string: src.replacingOccurrences(of: "&amp;", with: "&"), relativeTo: URL(string: url))?.absoluteString ?? src)
        let image = try ChildProcess.run(["curl", "-s", "-f", "--max-time", "10", "-o", "/dev/null", "-w", "%{content_type} %{size_download}", imageURL])
        XCTAssertEqual(image.status, 0, image.stderr)
        XCTAssertEqual(image.stdout, "image/jpeg \(desk.count)", "the photo, whole, through the link")

        // Bob lists the club's links from a script: the note in its own case.
        let listed = try Journey.run(bob, ["share", "--list", "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains(#""path_display":"/byteclub/Desk setup.md""#), listed.stdout)
        let human = try Journey.run(bob, ["share", "--list"])
        XCTAssertTrue(human.stdout.contains(url + "  /byteclub/Desk setup.md"), human.stdout)

        // Bob is a reader: a change from his shell is refused as the app refuses it, at once,
        // with exit 5 (not allowed), never "try again later".
        for arguments in [["put", "-", "Desk setup.md", "--mode", "overwrite"], ["rm", "Desk setup.md"], ["mv", "Desk setup.md", "Desk.md"]] {
            let refused = try bob.cli(arguments, input: "Bob's desk\n")
            XCTAssertEqual(refused.status, 5, "\(arguments): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("You may only read in this club"), "\(arguments): \(refused.stderr)")
        }
        XCTAssertEqual(club.text("Desk setup.md"), "# Desk setup\n\nMy corner of the club.\n\n![the desk](photos/desk.jpg)\n")

        // Ann revokes it; the browser gets nothing of the note any more.
        let revoked = try Journey.run(ann, ["unshare", url])
        XCTAssertEqual(revoked.status, 0, revoked.stderr)
        let after = try ChildProcess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", url])
        XCTAssertTrue(["404", "410"].contains(after.stdout), "after unshare: \(after.stdout)")
        let gone = try? Chromium.dumpDOM(url)
        XCTAssertFalse(gone?.contains("My corner of the club.") ?? false, gone ?? "")
        let none = try Journey.run(bob, ["share", "--list", "--json"])
        XCTAssertEqual(none.stdout, "[]\n")

        try screen.type("q")
        screen.waitFor(ann.exitLine(0))
    }
}
