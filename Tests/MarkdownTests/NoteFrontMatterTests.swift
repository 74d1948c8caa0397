import XCTest
@testable import Markdown

/// A note's YAML front matter read by Yams: its properties, tags, pin and aliases, where the body
/// starts, and odd input (YAML that does not parse, a fence never closed, tabs, a list or a
/// scalar for YAML, huge input) that must answer, never trap, and never lose the text.
final class NoteFrontMatterTests: XCTestCase {
    func testPropertiesInOrderTagsPinnedAndAliases() throws {
        let text = "---\ntitle: Sailing\ntags: [trip, \"#Boat\"]\npinned: true\naliases:\n  - Sail\n  - Boats, and more\n---\n# Sailing\nBody\n"
        let matter = try XCTUnwrap(NoteFrontMatter(text))
        XCTAssertNil(matter.error)
        XCTAssertEqual(matter.properties.map(\.key), ["title", "tags", "pinned", "aliases"])
        XCTAssertEqual(matter.properties.map(\.value), ["Sailing", "trip, #Boat", "true", "Sail, Boats, and more"])
        XCTAssertEqual(matter.tags, ["trip", "Boat"])
        XCTAssertTrue(matter.pinned)
        XCTAssertEqual(matter.aliases, ["Sail", "Boats, and more"])
        XCTAssertEqual(matter.bodyLine, 8)
        XCTAssertEqual(String(NoteFrontMatter.body(of: text)), "# Sailing\nBody\n")
        XCTAssertEqual(matter.bodyOffset, text.utf8.count - "# Sailing\nBody\n".utf8.count)
        XCTAssertEqual(matter.value("title"), "Sailing")
        XCTAssertNil(matter.value("missing"))
    }

    func testTagsAsAStringAndAliasAsAString() throws {
        XCTAssertEqual(NoteFrontMatter("---\ntags: trip boat\n---\n")?.tags, ["trip", "boat"])
        XCTAssertEqual(NoteFrontMatter("---\ntags: trip, boat\n---\n")?.tags, ["trip", "boat"])
        XCTAssertEqual(NoteFrontMatter("---\ntags:\n---\n")?.tags, [])
        XCTAssertEqual(NoteFrontMatter("---\naliases: Day one, again\n---\n")?.aliases, ["Day one, again"])
        XCTAssertEqual(NoteFrontMatter("---\npinned: yes\n---\n")?.pinned, true)
        XCTAssertEqual(NoteFrontMatter("---\npinned: false\n---\n")?.pinned, false)
        XCTAssertEqual(NoteFrontMatter("---\npinned: maybe\n---\n")?.pinned, false)
    }

    func testCRLFAndABodyThatIsEmpty() throws {
        let text = "---\r\ntags: [a]\r\n---\r\nbody\r\n"
        let matter = try XCTUnwrap(NoteFrontMatter(text))
        XCTAssertEqual(matter.tags, ["a"])
        XCTAssertEqual(matter.bodyLine, 3)
        XCTAssertEqual(String(NoteFrontMatter.body(of: text)), "body\r\n")
        let bare = try XCTUnwrap(NoteFrontMatter("---\nx: 1\n---"))
        XCTAssertEqual(bare.bodyOffset, 12)
        XCTAssertEqual(bare.properties, [NoteFrontMatter.Property(key: "x", value: "1")])
        let empty = try XCTUnwrap(NoteFrontMatter("---\n---\nText"))
        XCTAssertEqual(empty.properties, [])
        XCTAssertNil(empty.error)
    }

    func testNoFrontMatter() {
        XCTAssertNil(NoteFrontMatter("# Title\n---\ntags: a\n---\n"), "only at the very top")
        XCTAssertNil(NoteFrontMatter("---\ntags: [a]\nnever closed\n"), "a fence never closed is no front matter")
        XCTAssertNil(NoteFrontMatter("----\nx: 1\n---\n"))
        XCTAssertNil(NoteFrontMatter(""))
        XCTAssertNil(NoteFrontMatter("---"))
        XCTAssertEqual(String(NoteFrontMatter.body(of: "---\nopen\n")), "---\nopen\n")
    }

    func testYAMLThatDoesNotParseSaysWhyOnOneLine() throws {
        let matter = try XCTUnwrap(NoteFrontMatter("---\ntags: [trip, boat\ntitle: x\n---\nBody\n"))
        let error = try XCTUnwrap(matter.error)
        XCTAssertFalse(error.contains("\n"), error)
        XCTAssertTrue(error.contains("line "), error)
        XCTAssertEqual(matter.properties, [])
        XCTAssertEqual(matter.tags, [])
        XCTAssertEqual(matter.bodyLine, 4, "the body still starts after the fence")
        XCTAssertEqual(matter.yaml, "tags: [trip, boat\ntitle: x\n")
    }

    func testTabsAListAndAScalarAreNotProperties() throws {
        let tabs = try XCTUnwrap(NoteFrontMatter("---\ntags:\n\t- trip\n---\n"))
        XCTAssertNotNil(tabs.error, "YAML has no tab indents")
        let list = try XCTUnwrap(NoteFrontMatter("---\n- a\n- b\n---\n"))
        XCTAssertEqual(list.error, "it is a list, not `key: value` lines")
        let scalar = try XCTUnwrap(NoteFrontMatter("---\njust words\n---\n"))
        XCTAssertEqual(scalar.error, "it is a single value, not `key: value` lines")
        XCTAssertEqual(scalar.properties, [])
    }

    func testNestedValuesAndAliasBombsAreShortDisplayText() throws {
        let nested = try XCTUnwrap(NoteFrontMatter("---\nplace:\n  city: Oslo\n  tags: [a, b]\nnote: |\n  two\n  lines\n---\n"))
        XCTAssertEqual(nested.value("place"), "city: Oslo, tags: [a, b]")
        XCTAssertEqual(nested.value("note"), "two lines")
        var bomb = "---\na: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
        for level in 1...8 { bomb += "\(Character(Unicode.Scalar(97 + level)!)): &\(Character(Unicode.Scalar(97 + level)!)) [" + Array(repeating: "*\(Character(Unicode.Scalar(96 + level)!))", count: 9).joined(separator: ",") + "]\n" }
        bomb += "---\n"
        let exploded = try XCTUnwrap(NoteFrontMatter(bomb))
        XCTAssertTrue(exploded.properties.allSatisfy { $0.value.count <= NoteFrontMatter.displayLimit }, "a billion laughs is one short line each")
    }

    func testHugeInputAnswersWithoutParsingItAll() throws {
        let big = "---\n" + String(repeating: "key: value\n", count: 30_000) + "---\nbody"
        let matter = try XCTUnwrap(NoteFrontMatter(big))
        XCTAssertEqual(matter.error, "it is over 256 KiB")
        XCTAssertEqual(String(NoteFrontMatter.body(of: big)), "body")
        let unclosed = "---\n" + String(repeating: "line\n", count: 200_000)
        XCTAssertNil(NoteFrontMatter(unclosed))
        let deep = "---\nx: " + String(repeating: "[", count: 5_000) + "\n---\n"
        XCTAssertNotNil(NoteFrontMatter(deep)?.error, "nesting that deep does not parse")
    }

    func testTheRenderedViewShowsPropertiesNotARuleAndAHeading() {
        let note = RenderedNote.layout("---\ntags: [trip, boat]\naliases: [Sailing]\n---\n# Day one\nWind.\n", width: 60)
        let rows = note.plainText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(rows.first, "tags: trip, boat · aliases: Sailing")
        XCTAssertFalse(rows.contains { $0.hasPrefix("───") }, "no rule: \(rows)")
        XCTAssertFalse(rows.contains { $0.contains("tags: [") || $0 == "---" }, "\(rows)")
        XCTAssertEqual(Array(rows.dropFirst(2).prefix(1)), ["Day one"])
        XCTAssertEqual(note.lines[2].sourceLine, 4, "the body's lines keep their numbers")
    }

    func testTheRenderedViewShowsFrontMatterThatDoesNotParseAsItIsUnderAWarning() {
        let text = "---\ntags: [trip\n---\nBody\n"
        let rows = RenderedNote.layout(text, width: 80).plainText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(rows[0].hasPrefix("Front matter does not parse: "), rows[0])
        XCTAssertEqual(Array(rows[1...3]), ["---", "tags: [trip", "---"])
        XCTAssertEqual(rows.last, "Body")
        let crlf = RenderedNote.layout("---\r\n- a\r\n---\r\nBody", width: 80).plainText
        XCTAssertFalse(crlf.contains("\u{FFFD}"), crlf)
    }

    func testTheEditorDimsFrontMatterLinesAndNothingElseSeesThem() {
        let text = "---\ntitle: A\n---\n# Heading\n"
        let highlights = MarkdownParser.highlights(of: text)
        XCTAssertEqual((0...2).map { highlights.spans(ofLine: $0).map(\.element) }, [[.frontMatter], [.frontMatter], [.frontMatter]])
        XCTAssertEqual(highlights.spans(ofLine: 3).map(\.element), [.heading])
        XCTAssertFalse(highlights.all.contains { $0.element == .thematicBreak })
        let html = NoteHTML.fragment(of: text, title: "A", folder: "/byteclub") { _ in nil }
        XCTAssertFalse(html.contains("<hr"), html)
        XCTAssertFalse(html.contains("title: A</h2>"), html)
        XCTAssertTrue(html.hasPrefix("<h1>Heading</h1>\n<p><small>title: A</small></p>\n"), html)
        let broken = NoteHTML.fragment(of: "---\nx: [<b>\n---\nText\n", title: "B", folder: "/byteclub") { _ in nil }
        XCTAssertTrue(broken.contains("<p><em>Front matter does not parse: "), broken)
        XCTAssertTrue(broken.contains("<pre><code>---\nx: [&lt;b&gt;\n---\n</code></pre>"), broken)
    }
}
