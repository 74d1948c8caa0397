import Foundation
import TestSupport
import XCTest

/// A shared `.md` note opened in a browser (issue 34): a page rendered from the note, with the
/// club photos it references under the same link and nothing else, and no script run whatever
/// the note holds. Against a real `byteclub serve` child, with `curl` and headless Chromium as
/// the stranger holding the link.
final class NotePageTests: XCTestCase {
    var root: URL!
    var logURL: URL!

    /// The note: a heading, a club photo, a link to an unreferenced one's neighbour, and every
    /// way a note could try to run script or fetch something (each would leave a trace: a
    /// `data-pwned` attribute in the DOM, or a `/pwned…` request in the server's access log).
    static let note = """
        # Desk setup

        The desk, from the door:

        ![the desk](photos/desk.jpg)

        <script>document.body.setAttribute('data-pwned', 'script'); new Image().src = '/pwned-script';</script>

        Inline <img src="/pwned-img" onerror="document.body.setAttribute('data-pwned', 'onerror')"> and \
        <a href="javascript:document.body.setAttribute('data-pwned', 'raw-link')">a raw link</a>.

        [click me](javascript:document.body.setAttribute('data-pwned','link')) \
        [data](data:text/html,<script>parent.document.body.setAttribute('data-pwned','data')</script>) \
        ![tracker](https://127.0.0.1:1/pwned-remote.jpg)

        <style>body { background: url(/pwned-style) }</style>
        """

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("notepage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub/photos"), withIntermediateDirectories: true)
        try Data(Self.note.utf8).write(to: root.appendingPathComponent("byteclub/Desk setup.md"))
        try SyntheticJPEG.make(width: 64, height: 48, layout: .color420, progressive: false)
            .write(to: root.appendingPathComponent("byteclub/photos/desk.jpg"))
        try SyntheticJPEG.make(width: 32, height: 32, layout: .gray, progressive: false)
            .write(to: root.appendingPathComponent("byteclub/photos/private.jpg"))
        try Data("the club's secret plans\n".utf8).write(to: root.appendingPathComponent("byteclub/secret.md"))
        logURL = root.appendingPathComponent("access.log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: root)
    }

    func serve() throws -> ServeChild {
        try ServeChild(root: root, log: FileHandle(forWritingTo: logURL))
    }

    func share(_ server: ServeChild, _ path: String) async throws -> String {
        let reply = try await server.rpc("2/sharing/create_shared_link_with_settings", #"{"path":"\#(path)","settings":{}}"#)
        XCTAssertEqual(reply.status, 200, reply.text)
        return try XCTUnwrap(reply.json["url"] as? String, reply.text)
    }

    /// The server's access log so far: one line per request, the token shown as `/s/…`.
    var accessLog: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    // MARK: Chromium

    func testChromiumShowsTheHeadingAndThePhotoAndRunsNothing() async throws {
        let server = try serve()
        let url = try await share(server, "/byteclub/Desk setup.md")
        // The detector works: this Chromium runs script, and the dumped DOM shows what it did.
        let control = try Chromium.dumpDOM("data:text/html,<body><script>document.body.setAttribute('data-pwned','script')</script></body>")
        XCTAssertTrue(control.contains(#"data-pwned="script""#), control)

        let dom = try Chromium.dumpDOM(url)
        XCTAssertTrue(dom.contains("<title>Desk setup</title>"), dom)
        XCTAssertTrue(dom.contains("<h1>Desk setup</h1>"), dom)
        XCTAssertTrue(dom.contains(#"<img src="Desk%20setup.md?photo=%2Fbyteclub%2Fphotos%2Fdesk.jpg" alt="the desk">"#), dom)
        XCTAssertFalse(dom.contains("data-pwned=\""), "a script ran: \(dom)")
        // No anchor at all: the note's only links lead to javascript: and data:, which keep their words only.
        XCTAssertFalse(dom.contains("<a "), dom)
        XCTAssertFalse(dom.contains("<script"), dom)
        XCTAssertTrue(dom.contains("&lt;script&gt;document.body.setAttribute"), "the script is shown as text: \(dom)")
        XCTAssertTrue(dom.contains("click me data tracker"), "links that go nowhere safe are their words: \(dom)")

        // The photo was fetched, through the link, and answered; nothing the note tried was.
        let deadline = Date().addingTimeInterval(10)
        while accessLog.components(separatedBy: "GET /s/… 200").count < 3, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        XCTAssertEqual(accessLog.components(separatedBy: "GET /s/… 200").count - 1, 2, "the page and its photo: \(accessLog)")
        XCTAssertFalse(accessLog.contains("pwned"), accessLog)
    }

    // MARK: The link's answers

    func testTheLinkServesThePageOnlyToBrowsersAndOnlyThePhotosTheNoteReferences() async throws {
        let server = try serve()
        let url = try await share(server, "/byteclub/Desk setup.md")

        let page = try Curl.get(url, ["-H", "Accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"])
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("content-type"), "text/html; charset=utf-8")
        XCTAssertEqual(page.header("vary"), "Accept")
        let policy = try XCTUnwrap(page.header("content-security-policy"))
        XCTAssertTrue(policy.hasPrefix("default-src 'none'; img-src 'self'; style-src 'sha256-"), policy)
        XCTAssertFalse(policy.contains("script-src"), policy)
        XCTAssertTrue(page.text.contains("<h1>Desk setup</h1>"), page.text)

        // Other clients, text/html refused, and ?dl=1 get the raw note.
        let raw = try Curl.get(url)
        XCTAssertEqual(raw.text, Self.note)
        XCTAssertEqual(raw.header("content-type"), "text/plain; charset=utf-8")
        XCTAssertEqual(raw.header("vary"), "Accept")
        XCTAssertEqual(try Curl.get(url, ["-H", "Accept: text/html;q=0, */*"]).text, Self.note)
        let download = try Curl.get(url + "?dl=1", ["-H", "Accept: text/html"])
        XCTAssertEqual(download.text, Self.note)
        XCTAssertTrue(download.header("content-disposition")?.hasPrefix("attachment;") == true, "\(download.headers)")

        // The referenced photo, byte for byte, by ranges too; nothing else, however asked.
        let desk = try Data(contentsOf: root.appendingPathComponent("byteclub/photos/desk.jpg"))
        let photo = try Curl.get(url + "?photo=%2Fbyteclub%2Fphotos%2Fdesk.jpg")
        XCTAssertEqual(photo.status, 200)
        XCTAssertEqual(photo.body, desk)
        XCTAssertEqual(photo.header("content-type"), "image/jpeg")
        XCTAssertEqual(try Curl.get(url + "?photo=%2FByteClub%2Fphotos%2FDESK.jpg", ["-r", "0-9"]).body, desk.prefix(10))
        for other in ["/byteclub/photos/private.jpg", "/byteclub/secret.md", "/byteclub/Desk setup.md", "/byteclub/photos/../secret.md",
                      "/byteclub/photos/desk.jpg/../private.jpg", "/.byteclub/shared-links.json", "photos/desk.jpg", ""] {
            let reply = try Curl.get(url + "?photo=" + (other.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            XCTAssertEqual(reply.status, 404, other)
            XCTAssertFalse(reply.text.contains("secret plans"), other)
            XCTAssertNotEqual(reply.body, desk, other)
        }

        // The note is the truth: once it no longer shows the photo, the link no longer serves it.
        let rewritten = try await server.content("2/files/upload", #"{"path":"/byteclub/Desk setup.md","mode":"overwrite"}"#,
                                                 body: Data("# Desk setup\n\nNo pictures now.\n".utf8))
        XCTAssertEqual(rewritten.status, 200, rewritten.text)
        XCTAssertEqual(try Curl.get(url + "?photo=%2Fbyteclub%2Fphotos%2Fdesk.jpg").status, 404)
        XCTAssertFalse(try Curl.get(url, ["-H", "Accept: text/html"]).text.contains("<img"))
    }

    func testAPhotoLinkOfAnotherFileServesNoPage() async throws {
        // A shared photo, or a shared .txt, is never turned into a page or a gateway to photos.
        try Data("![the desk](photos/desk.jpg)\n".utf8).write(to: root.appendingPathComponent("byteclub/list.txt"))
        let server = try serve()
        let text = try await share(server, "/byteclub/list.txt")
        XCTAssertEqual(try Curl.get(text, ["-H", "Accept: text/html"]).text, "![the desk](photos/desk.jpg)\n")
        XCTAssertEqual(try Curl.get(text + "?photo=%2Fbyteclub%2Fphotos%2Fdesk.jpg").text, "![the desk](photos/desk.jpg)\n")
        let photo = try await share(server, "/byteclub/photos/desk.jpg")
        XCTAssertEqual(try Curl.get(photo, ["-H", "Accept: text/html"]).header("content-type"), "image/jpeg")
    }
}
