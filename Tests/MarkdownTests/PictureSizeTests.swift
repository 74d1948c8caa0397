import Testing
@testable import Markdown

/// Sized pictures (`![[x.png|300]]`, `|100x145`, `![alt|300](x.png)`) and pictures the caller
/// cannot draw, in the rendered view's layout.
@Suite struct PictureSizeTests {
    @Test func sizesAreParsedAsObsidianWritesThem() {
        #expect(NoteLinks.pictureSize("300") == PictureSize(width: 300))
        #expect(NoteLinks.pictureSize(" 100x145 ") == PictureSize(width: 100, height: 145))
        #expect(NoteLinks.pictureSize("100X145") == PictureSize(width: 100, height: 145))
        for text in ["", "x", "300x", "x145", "0", "3e2", "-4", "The sea", "1000000", "١٢٣"] {
            #expect(NoteLinks.pictureSize(text) == nil, "\(text)")
        }
        #expect(NoteLinks.pictureSize(inAlt: "desk|300") == ("desk", PictureSize(width: 300)))
        #expect(NoteLinks.pictureSize(inAlt: "a|b").alt == "a|b")
        #expect(NoteLinks.pictureSize(inAlt: "desk").size == nil)
    }

    @Test func aWikiPictureKeepsItsSizeApartFromItsText() {
        let links = NoteLinks.scan("![[pano.jpg|300]] ![[sea.jpg|100x145]] ![[cat.jpg|The cat]] [[Note|300]]")
        #expect(links.map(\.size) == [PictureSize(width: 300), PictureSize(width: 100, height: 145), nil, nil])
        #expect(links.map(\.text) == ["pano.jpg", "sea.jpg", "The cat", "300"])
    }

    @Test func theSlotIsTheSizeInCellsNeverWiderThanThePane() {
        let cell = (width: 10, height: 20)
        // 300 pixels over 10-pixel cells: 30 columns; 145 over 20: 8 rows.
        #expect(NoteLinks.pictureSlot(size: PictureSize(width: 300), known: nil, available: 80, defaultRows: 12, cell: cell) == (30, 12))
        #expect(NoteLinks.pictureSlot(size: PictureSize(width: 300), known: (400, 200), available: 80, defaultRows: 12, cell: cell) == (30, 8))
        #expect(NoteLinks.pictureSlot(size: PictureSize(width: 100, height: 145), known: nil, available: 80, defaultRows: 12, cell: cell) == (10, 8))
        // 2000 pixels in a 50-column pane: the pane's width, the height shrunk alike.
        #expect(NoteLinks.pictureSlot(size: PictureSize(width: 2000, height: 1000), known: nil, available: 50, defaultRows: 12, cell: cell) == (50, 13))
        #expect(NoteLinks.pictureSlot(size: nil, known: (400, 200), available: 80, defaultRows: 12, cell: cell) == (nil, 12))
    }

    @Test func aSizedPictureTakesItsColumnsAndRows() {
        var options = RenderOptions(pictureRows: 6)
        options.knownPictures = ["/byteclub/photos/b.png": .size(width: 200, height: 100)]
        let note = RenderedNote.layout("![[a.png|100x145]]\n\n![[b.png|300]]\n\n![desk|50](photos/c.png)\n\n![[d.png]]", width: 60, options: options)
        #expect(note.pictures.map(\.path) == ["/byteclub/photos/a.png", "/byteclub/photos/b.png", "/byteclub/photos/c.png", "/byteclub/photos/d.png"])
        #expect(note.pictures.map(\.columns) == [10, 30, 5, nil])
        #expect(note.pictures.map(\.rows) == [8, 8, 6, 6])
        // The alt text without its size is the caption.
        #expect(note.pictures[2].alt == "desk")
        #expect(note.plainText.contains("\ndesk\n"))
        #expect(!note.plainText.contains("desk|50"))
        // A different cell size makes other slots.
        options.cellPixelWidth = 20
        options.cellPixelHeight = 40
        let wide = RenderedNote.layout("![[a.png|100x145]]", width: 60, options: options)
        #expect(wide.pictures.map(\.columns) == [5])
        #expect(wide.pictures.map(\.rows) == [4])
    }

    @Test func aPictureThatCannotBeDrawnIsOneRowWithItsNameAndWhy() {
        var options = RenderOptions(pictureRows: 6)
        options.knownPictures = ["/byteclub/photos/scan.tiff": .undrawn("TIFF pictures are not drawn"),
                                 "/byteclub/photos/gone.png": .undrawn("3.0 KiB · cannot be drawn")]
        let note = RenderedNote.layout("Before\n\n![the scan](photos/scan.tiff)\n\n![[gone.png]]\n\nAfter", width: 60, options: options)
        #expect(note.pictures.isEmpty)
        #expect(note.plainText == "Before\n\n▣ scan.tiff · TIFF pictures are not drawn\nthe scan\n\n▣ gone.png · 3.0 KiB · cannot be drawn\n\nAfter")
        // Still a link: Enter on it says what there is to say.
        #expect(note.lines.contains { $0.text.hasPrefix("▣ gone.png") && $0.runs.contains { $0.link != nil } })
    }

    @Test func svgIsAPictureButNotOnAWebPage() {
        #expect(NoteLinks.scan("![[icon.svg]]").first.map { $0.target(inFolder: "/byteclub") } == .photo("/byteclub/photos/icon.svg"))
        #expect(!NoteHTML.isPhotoFile("/byteclub/photos/icon.svg"))
        #expect(NoteHTML.isPhotoFile("/byteclub/photos/icon.png"))
    }
}
