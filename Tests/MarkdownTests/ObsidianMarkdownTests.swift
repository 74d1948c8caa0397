import Testing
@testable import Markdown

/// Obsidian's Markdown in the rendered view (issue 55): callouts, highlights, comments, math,
/// footnotes, embeds with their depth limit and loop guard, heading and block links, and the
/// inline tags of a note's text.
@Suite struct ObsidianMarkdownTests {
    private func rows(_ text: String, width: Int = 40, options: RenderOptions = RenderOptions()) -> [String] {
        RenderedNote.layout(text, width: width, options: options).plainText
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func calloutsAreBoxesWithKindAndTitleAndFoldedOnesOnlyTheirTitle() {
        #expect(rows("> [!warning] Mind the tide\n> Back by *six*.", width: 30) == [
            "╭─ Warning · Mind the tide ──╮",
            "│ Back by six.               │",
            "╰────────────────────────────╯",
        ])
        #expect(rows("> [!tip]\n> Bring water.", width: 20) == [
            "╭─ Tip ────────────╮", "│ Bring water.     │", "╰──────────────────╯",
        ])
        // Folded (`-`): the title row only, the body not drawn; `+`: open, marked foldable.
        #expect(rows("> [!faq]- Why?\n> Because.") == ["╶ ▸ Faq · Why? ╴"])
        #expect(rows("> [!note]+ Open\n> Shown.", width: 20)[1] == "│ Shown.           │")
        let note = RenderedNote.layout("> [!note] T\n> body", width: 20)
        #expect(note.lines[0].runs.contains { $0.text == "Note · T" && $0.style.contains(.callout) })
        // A plain quote stays a quote.
        #expect(rows("> [not a callout]\n> text") == ["│ [not a callout] text"])
    }

    @Test func highlightsCommentsAndBlockIDs() {
        let note = RenderedNote.layout("Some ==marked words== here %%not this%% end. ^tail", width: 60)
        #expect(note.plainText == "Some marked words here end.")
        #expect(note.lines[0].runs.contains { $0.text == "marked words" && $0.style.contains(.highlight) })
        #expect(!note.lines[0].runs.contains { $0.text.contains("here") && $0.style.contains(.highlight) })
        // A comment over several lines is left out, and the rows after keep their note lines.
        let block = RenderedNote.layout("before\n\n%%\nhidden\nlines\n%%\n\nafter", width: 40)
        #expect(block.plainText == "before\n\nafter")
        #expect(block.lines.last?.sourceLine == 7)
        // In code, nothing is rewritten.
        #expect(rows("`==x== %%y%% $z$`") == ["==x== %%y%% $z$"])
        let code = rows("```\n%%kept%%\n$$\n```")
        #expect(code.contains("│ %%kept%% │") && code.contains("│ $$       │"))
        // Setext underlines and `a == b` are no highlights.
        #expect(rows("a == b and c ==d") == ["a == b and c ==d"])
    }

    @Test func mathIsItsSourceInABoxOrAsCode() {
        let lines = rows("$$\n\\int_0^1 x^2\\,dx\n$$", width: 30)
        #expect(lines.count == 3 && lines[0].hasPrefix("╭─ math ─") && lines[1] == "│ \\int_0^1 x^2\\,dx │")
        let block = rows("$$\\int_0^1 x^2\\,dx$$", width: 30)
        #expect(block.count == 3)
        #expect(block[1].contains("\\int_0^1 x^2\\,dx"))
        #expect(block[0].hasPrefix("╭─ math"))
        let inline = RenderedNote.layout("Euler: $e^{i\\pi} + 1 = 0$, and $5 or $10 is money.", width: 60)
        #expect(inline.plainText == "Euler: e^{i\\pi} + 1 = 0, and $5 or $10 is money.")
        #expect(inline.lines[0].runs.contains { $0.text == "e^{i\\pi} + 1 = 0" && $0.style.contains(.code) })
        // The rows of a one-line `$$…$$` all belong to its note line.
        let note = RenderedNote.layout("one\n\n$$x$$\n\nafter", width: 30)
        #expect(note.lines.filter { $0.text.contains("x") }.map(\.sourceLine) == [2])
        #expect(note.lines.last?.sourceLine == 4)
    }

    @Test func footnotesAreNumberedAndListed() {
        #expect(rows("Said[^a] twice[^b].\n\n[^a]: First.\n[^b]: Second.") == [
            "Said[1] twice[2].", "", "────────────", "[1] First.", "[2] Second.",
        ])
    }

    @Test func wikiLinksKeepTheirHeadingOrBlock() {
        let links = NoteLinks.scan("[[Trip#Day 2|day two]] [[Trip#^plan]] [[#Packing]] [x](Trip.md#Day%202) [[Trip]]")
        #expect(links.map(\.fragment) == ["Day 2", "^plan", "Packing", "Day 2", nil])
        #expect(links.map(\.destination) == ["Trip", "Trip", "", "Trip.md#Day%202", "Trip"])
        #expect(links.map(\.text) == ["day two", "Trip", "Packing", "x", "Trip"])
        #expect(links[2].target(inFolder: "/byteclub") == .here)
        #expect(links[3].target(inFolder: "/byteclub") == .path("/byteclub/Trip.md"))
        #expect(NoteLinks.scan("[x](#Packing)")[0].target(inFolder: "/byteclub") == .here)
        #expect(NoteLinks.scan("[x](https://a.example/#top)")[0].fragment == nil)
        // Drawn as Obsidian shows them.
        #expect(rows("[[Trip#Day 2]] and [[#Packing]]") == ["Trip › Day 2 and Packing"])
    }

    @Test func anchorsFindHeadingsAndBlocks() {
        let text = "---\ntags: [a]\n---\n# Trip\n\n## Day  1\nwalk\n\n## Day 2\nswim\nfar out ^swim-1\n\n- pack ^list\n\n```\nfake ^code\n```\n# Next\nend"
        #expect(NoteAnchors.line(of: "day 1", in: text) == 5)
        #expect(NoteAnchors.line(of: "Trip#Day 2", in: text) == 8)
        #expect(NoteAnchors.line(of: "^swim-1", in: text) == 10)
        #expect(NoteAnchors.line(of: "^LIST", in: text) == 12)
        #expect(NoteAnchors.line(of: "^code", in: text) == nil)
        #expect(NoteAnchors.line(of: "Nowhere", in: text) == nil)
        #expect(NoteAnchors.line(of: "Day 2 Swim", in: "# Day 2: Swim\n") == 0, "as Obsidian writes the link to a heading with a colon")
        #expect(NoteAnchors.section("Day 2", in: text) == "## Day 2\nswim\nfar out ^swim-1\n\n- pack ^list\n\n```\nfake ^code\n```")
        #expect(NoteAnchors.section("^swim-1", in: text) == "swim\nfar out ^swim-1")
        #expect(NoteAnchors.section("^list", in: text) == "- pack ^list")
        #expect(NoteAnchors.section("Next", in: text) == "# Next\nend")
    }

    @Test func embedsAreDrawnFramedWithADepthLimitAndALoopGuard() {
        let notes: [String: EmbeddedNote] = [
            "trip": EmbeddedNote(path: "/byteclub/Trip.md", text: "---\ntitle: t\n---\n# Trip\n\n## Day 2\nSwim far.\n\n## Day 3\nRest."),
            "self": EmbeddedNote(path: "/byteclub/Self.md", text: "Me again: ![[Self]]"),
            "a": EmbeddedNote(path: "/byteclub/A.md", text: "in A ![[B]]"),
            "b": EmbeddedNote(path: "/byteclub/B.md", text: "in B ![[A]]"),
            "d1": EmbeddedNote(path: "/byteclub/D1.md", text: "one ![[D2]]"),
            "d2": EmbeddedNote(path: "/byteclub/D2.md", text: "two ![[D3]]"),
            "d3": EmbeddedNote(path: "/byteclub/D3.md", text: "three ![[D4]]"),
            "d4": EmbeddedNote(path: "/byteclub/D4.md", text: "four ![[D5]]"),
            "d5": EmbeddedNote(path: "/byteclub/D5.md", text: "five"),
        ]
        var options = RenderOptions()
        options.path = "/byteclub/Self.md"
        options.embeds = { notes[$0.destination.lowercased()] }
        #expect(rows("Before\n\n![[Trip#Day 2]]\n\nAfter", width: 30, options: options) == [
            "Before", "", "┌─ ⧉ Trip#Day 2 ──────────────", "│ Day 2", "│ ─────", "│", "│ Swim far.", "└────────────────", "", "After",
        ])
        // A whole note is its body, without its front matter.
        let whole = rows("![[Trip]]", width: 30, options: options)
        #expect(whole.first == "┌─ ⧉ Trip " + String(repeating: "─", count: 20))
        #expect(!whole.contains { $0.contains("title") })
        #expect(whole.contains("│ Rest."))
        // The note embedding itself, and a loop through another, stop at once, in one line.
        #expect(rows("![[Self]]", width: 80, options: options) == ["⧉ Self is already drawn around here: an embed loop is not followed"])
        let loop = rows("![[A]]", width: 80, options: options)
        #expect(loop.filter { $0.contains("an embed loop is not followed") }.count == 1)
        #expect(loop.contains { $0.contains("in B") })
        // Three deep, then a line saying so.
        let deep = rows("![[D1]]", width: 80, options: options)
        #expect(deep.contains { $0.contains("three") })
        #expect(deep.contains { $0.contains("embeds deeper than 3 are not drawn") })
        #expect(!deep.contains { $0.contains("four") })
        // No such note, or no way to read notes: a line naming it.
        #expect(rows("![[Missing]]", options: options) == ["⧉ Missing"])
        #expect(rows("![[Trip]]") == ["⧉ Trip"])
        #expect(rows("![[Trip#Nowhere]]", width: 60, options: options) == ["⧉ Trip#Nowhere: no such heading or block in it"])
    }

    @Test func inlineTagsAreFoundOutsideCodeHeadingsAndAddresses() {
        let text = """
            ---
            tags: [matter]
            ---
            # Heading #intitle
            Plan #trip and #project/alpha, #Trip again, #2026 is a year, #2026/q1 has a letter, #y2026 too.
            A link https://example.com/#anchor, [[Note#Part]], [[#Heading]] and `#code` are not.
            issue#12 is no tag; #under_score and #dash-ed are. %%#hidden%%
            ```
            #incode
            ```
                #indented
            #end/
            """
        #expect(InlineTags.scan(text) == ["intitle", "trip", "project/alpha", "2026/q1", "y2026", "under_score", "dash-ed", "end"])
        #expect(InlineTags.scan("no tags here") == [])
        // Drawn as tags in the rendered view, by the same rule.
        let drawn = RenderedNote.layout("Plan #trip and #project/alpha/, not #2026 or a#b or `#code`.", width: 80)
        #expect(drawn.lines[0].runs.filter { $0.style.contains(.marker) }.map(\.text) == ["#trip", "#project/alpha"])
        #expect(InlineTags.scan("##double # spaced") == [])
    }
}
