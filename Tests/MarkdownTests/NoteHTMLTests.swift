import Markdown
import XCTest

/// A shared note's web page: what the renderer keeps, rewrites and refuses.
final class NoteHTMLTests: XCTestCase {
    /// Photos are served only as the page's own link gives them; everything else gets nil.
    let source: (String) -> String? = { path in path.hasPrefix("/byteclub/photos/") ? "Note.md?photo=" + path : nil }

    func fragment(_ text: String, title: String = "Note") -> String {
        NoteHTML.fragment(of: text, title: title, folder: "/byteclub", photoSource: source)
    }

    func testRawHTMLIsShownAsTextNeverPassedThrough() {
        let html = fragment("""
            # Plans

            <script>document.title = 'ran'</script>

            Inline <img src=x onerror="alert(1)"> and <a href="javascript:alert(2)">here</a>.

            <div onclick="alert(3)">
            block
            </div>
            """)
        XCTAssertFalse(html.contains("<script"), html)
        XCTAssertFalse(html.contains("<img src=x"), html)
        XCTAssertFalse(html.contains("<div"), html)
        XCTAssertFalse(html.contains("<a href=\"javascript"), html)
        XCTAssertFalse(html.contains("raw HTML omitted"), "shown, not dropped: \(html)")
        XCTAssertTrue(html.contains("&lt;script&gt;document.title = 'ran'&lt;/script&gt;"), html)
        XCTAssertTrue(html.contains("Inline &lt;img src=x onerror=&quot;alert(1)&quot;&gt;"), html)
        XCTAssertTrue(html.contains("&lt;div onclick=&quot;alert(3)&quot;&gt;<br />\nblock<br />\n&lt;/div&gt;"), html)
    }

    func testDangerousAndForeignLinksKeepTheirTextAndLoseTheirAddress() {
        let html = fragment("""
            [run](javascript:alert(1)) [case](JaVaScRiPt:alert(2)) [data](data:text/html,<b>x</b>) \
            [file](file:///etc/passwd) <javascript:alert(3)> [mail](mailto:a@b.c) \
            ![far](https://tracker.example/pixel.jpg) [web](https://example.com/x) https://club.example
            """)
        for address in ["javascript:alert(1)", "JaVaScRiPt", "data:", "file:", "mailto:", "tracker.example"] {
            XCTAssertFalse(html.contains(address), "\(address) in \(html)")
        }
        // The autolink's words are its address: shown as text, never as a link.
        XCTAssertTrue(html.contains("run case data file javascript:alert(3) mail far"), html)
        XCTAssertEqual(html.components(separatedBy: "<a ").count, 3, html)
        XCTAssertTrue(html.contains("mail far"), "another host's picture is its alt text: \(html)")
        XCTAssertTrue(html.contains(#"<a href="https://example.com/x">web</a>"#), html)
        XCTAssertTrue(html.contains(#"<a href="https://club.example">https://club.example</a>"#), html)
    }

    func testClubPhotosBothWaysAndWikiLinksToNotes() {
        let html = fragment("""
            ![the desk](photos/desk.jpg) and ![[sea.jpg|The sea]] beside [[Trip plan|the plan]] and [x](Budget.md).
            ![gone](../secret/key.jpg) ![[notes.md]] `[[in code]]`
            """)
        XCTAssertTrue(html.contains(#"<img src="Note.md?photo=/byteclub/photos/desk.jpg" alt="the desk" />"#), html)
        XCTAssertTrue(html.contains(#"<img src="Note.md?photo=/byteclub/photos/sea.jpg" alt="The sea" />"#), html)
        XCTAssertTrue(html.contains("beside the plan and x."), "other notes are text: \(html)")
        XCTAssertTrue(html.contains("gone notes.md <code>[[in code]]</code>"), html)
        XCTAssertEqual(html.components(separatedBy: "<img").count, 3, html)
        XCTAssertEqual(NoteHTML.photoPaths(in: "![a](photos/A.JPG) ![[b.png]] ![c](c.svg) [d](photos/d.gif) ![e](Other.md)", folder: "/byteclub"),
                       ["/byteclub/photos/a.jpg", "/byteclub/photos/b.png", "/byteclub/photos/d.gif"])
    }

    func testTitleHeadingTablesTasksAndFootnotes() {
        let html = fragment("""
            Some text[^1].

            | a | b |
            |---|---|
            | 1 | 2 |

            - [x] done
            - [ ] open

            [^1]: The note.
            """, title: "Desk <setup>")
        XCTAssertTrue(html.hasPrefix("<h1>Desk &lt;setup&gt;</h1>"), html)
        XCTAssertTrue(html.contains("<table>"), html)
        XCTAssertTrue(html.contains(#"<input type="checkbox" checked="" disabled="" /> done"#), html)
        XCTAssertTrue(html.contains("The note."), html)
        XCTAssertTrue(html.contains("footnotes"), html)
        // A note that opens with its own title gets no second one.
        let own = fragment("# Own title\n\ntext")
        XCTAssertEqual(own.components(separatedBy: "<h1>").count, 2, own)
        let page = NoteHTML.page(of: "x", title: "A \"quoted\" & <b>", folder: "/byteclub", photoSource: source)
        XCTAssertTrue(page.contains("<title>A &quot;quoted&quot; &amp; &lt;b&gt;</title>"), page)
        XCTAssertTrue(page.contains("<style>\(NoteHTML.style)</style>"), page)
    }
}
