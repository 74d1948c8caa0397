import Testing
@testable import Markdown

/// The rendered view's layout, read back as plain rows.
@Suite struct RenderedNoteTests {
    private func rows(_ text: String, width: Int = 40, pictureRows: Int = 3) -> [String] {
        RenderedNote.layout(text, width: width, options: RenderOptions(pictureRows: pictureRows)).plainText
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func headingsEmphasisAndParagraphsWrapAtWords() {
        let note = RenderedNote.layout("# Desk *tour*\n\nA **long** sentence that must wrap at a word boundary here.", width: 24)
        #expect(note.plainText == """
        Desk tour
        ━━━━━━━━━
        
        A long sentence that
        must wrap at a word
        boundary here.
        """)
        let strong = note.lines[3].runs.first { $0.text == "long" }
        #expect(strong?.style == .strong)
        #expect(note.lines[0].runs.contains { $0.text == "tour" && $0.style == [.heading, .emphasis] })
        #expect(note.lines.allSatisfy { $0.width <= 24 })
    }

    @Test func listsAndTaskLists() {
        #expect(rows("- one\n- two\n  1. inner\n  2. next\n     - deeper") == ["• one", "• two", "  1. inner", "  2. next", "     ◦ deeper"])
        let tasks = RenderedNote.layout("- [ ] todo\n- [x] done", width: 40)
        #expect(tasks.plainText == "☐ todo\n☑ done")
        #expect(tasks.lines[1].runs[0].style == [.marker, .done])
        #expect(tasks.lines[0].runs[0].style == .marker)
        #expect(rows("3. c\n4. d\n\n   more\n5. e") == ["3. c", "", "4. d", "", "   more", "", "5. e"])
    }

    @Test func codeFencesAreBoxedAndKeepTheirSpaces() {
        let note = RenderedNote.layout("```swift\nlet x =  1\n```", width: 40)
        #expect(note.plainText == "╭─ swift ────╮\n│ let x =  1 │\n╰────────────╯")
        #expect(note.lines[1].runs[1].style == .codeBlock)
        #expect(note.lines[0].runs[0].style == .border)
    }

    @Test func codeLongerThanTheBoxIsCutIntoRows() {
        #expect(rows("```\n" + String(repeating: "a", count: 20) + "\n```", width: 14) == [
            "╭────────────╮", "│ aaaaaaaaaa │", "│ aaaaaaaaaa │", "╰────────────╯",
        ])
    }

    @Test func tablesLineUpWithWideCharacters() {
        let text = "| Name | Score |\n|:-----|------:|\n| 山田 | 7 |\n| ann | 12 |"
        let widths: @Sendable (Unicode.Scalar) -> Int = RenderOptions.approximateWidth
        var options = RenderOptions()
        options.cellWidth = widths
        let note = RenderedNote.layout(text, width: 40, options: options)
        #expect(note.plainText == """
        ┌──────┬───────┐
        │ Name │ Score │
        ├──────┼───────┤
        │ 山田 │     7 │
        │ ann  │    12 │
        └──────┴───────┘
        """)
        #expect(note.lines.allSatisfy { $0.width == 16 && !$0.scrolls })
        #expect(note.lines[1].runs.contains { $0.text == "Name" && $0.style == .tableHeader })
    }

    @Test func aTableWiderThanTheNoteScrollsInsteadOfWrapping() {
        let text = "| a | b |\n|---|---|\n| " + String(repeating: "x", count: 50) + " | y |"
        let note = RenderedNote.layout(text, width: 30)
        #expect(note.lines.count == 5)
        #expect(note.lines.allSatisfy { $0.scrolls && $0.width == 58 })
    }

    @Test func quotesRulesAndFootnotes() {
        #expect(rows("> quoted\n>\n> again\n\n---\n\nText[^1].\n\n[^1]: The note.", width: 10) == [
            "│ quoted",
            "│",
            "│ again",
            "",
            "──────────",
            "",
            "Text[1].",
            "",
            "──────────",
            "[1] The",
            "    note.",
        ])
        // Numbered in the order they are first referred to, whatever their labels.
        #expect(rows("B[^b] and A[^a] and B[^b].\n\n[^a]: Apple.\n[^b]: Banana.") == [
            "B[1] and A[2] and B[1].", "", "────────────", "[1] Banana.", "[2] Apple.",
        ])
    }

    @Test func linksKeepTheirTargetAndWebOnesShowTheAddress() {
        let note = RenderedNote.layout("See [[Trip plan]], [the plan](Trip%20plan.md) and [site](https://example.com).", width: 80)
        #expect(note.plainText == "See Trip plan, the plan and site ⟨https://example.com⟩.")
        #expect(note.links.map(\.target) == [.path("/byteclub/Trip plan.md"), .web("https://example.com"), .note(title: "Trip plan")])
        let wiki = note.lines[0].runs.first { $0.text == "Trip plan" }
        #expect(wiki?.style == .link)
        #expect(wiki.flatMap { $0.link }.map { note.links[$0].target } == .note(title: "Trip plan"))
        #expect(note.webAddress(of: note.links.firstIndex { $0.target == .web("https://example.com") }!) == "https://example.com")
    }

    @Test func wikiLinksInCodeStayText() {
        let note = RenderedNote.layout("`[[not a link]]` and [[Real]]", width: 80)
        #expect(note.plainText == "[[not a link]] and Real")
        #expect(note.links.map(\.target) == [.note(title: "Real")])
    }

    @Test func clubPhotosGetASlotAndOtherHostsOnlyTheirAltText() {
        let note = RenderedNote.layout("Look:\n\n![my desk](photos/desk.jpg)\n\n![[cat.jpg]] and ![remote](https://x.example/a.jpg)",
                                       width: 40, options: RenderOptions(pictureRows: 3))
        #expect(note.pictures.map(\.path) == ["/byteclub/photos/desk.jpg", "/byteclub/photos/cat.jpg"])
        #expect(note.pictures.map(\.rows) == [3, 3])
        let first = note.pictures[0]
        #expect((first.line..<(first.line + 3)).allSatisfy { note.lines[$0].picture == 0 })
        #expect(note.lines[first.line].text == "▣ desk.jpg")
        #expect(note.lines[first.line + 3].text == "my desk")
        #expect(note.plainText.contains("[remote]"))
        #expect(!note.pictures.contains { $0.path.contains("x.example") })
    }

    /// Where no pictures are drawn (the default, `byteclub cat --render`), a club photo is its
    /// alt text once, as any picture is, not a stand-in name over empty rows.
    @Test func withoutPicturesAClubPhotoIsItsAltTextOnce() {
        let note = RenderedNote.layout("Look:\n\n![my desk](photos/desk.jpg)\n\n![[cat.jpg]] after", width: 40)
        #expect(note.pictures.isEmpty)
        #expect(note.plainText == "Look:\n\n[my desk]\n\n[cat.jpg] after")
        #expect(note.links.map(\.target).contains(.photo("/byteclub/photos/desk.jpg")), "still a link to the photo")
        #expect(!note.ansiText(colors: false, hyperlinks: false).contains("▣"))
    }

    @Test func rawHTMLAndControlsAreShownNotObeyed() {
        let note = RenderedNote.layout("<script>alert(1)</script>\n\nbell \u{07} esc \u{1B}[31m", width: 80)
        #expect(note.plainText.contains("<script>alert(1)</script>"))
        let ansi = note.ansiText(colors: false, hyperlinks: false)
        #expect(!ansi.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }

    @Test func hyperlinksAreOSC8OnlyForWebAddresses() {
        let note = RenderedNote.layout("[site](https://example.com/a) [[Note]] [bad](https://e.com/\u{1B}x)", width: 80)
        let ansi = note.ansiText(colors: false)
        #expect(ansi.contains("\u{1B}]8;;https://example.com/a\u{1B}\\site"))
        #expect(ansi.components(separatedBy: "\u{1B}]8;;https").count == 3)
        #expect(!ansi.contains("\u{1B}x"))
    }

    @Test func plainNotesAreWrappedOnly() {
        let note = RenderedNote.layout("# not a heading\n\n**still text** here", width: 12, options: RenderOptions(plain: true))
        #expect(note.plainText == "# not a\nheading\n\n**still\ntext** here")
    }
}
