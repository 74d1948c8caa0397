import CCmarkGFM

/// A note laid out for reading in a terminal: lines of styled runs, wrapped to a width, from
/// cmark-gfm's parse tree (the same parse as the editor's highlighting and ``NoteLinks``).
///
/// Headings, emphasis, lists and task lists, block quotes, fenced code in a box, GFM tables
/// (with cell widths, so CJK columns line up), thematic breaks and footnotes; Obsidian's
/// callouts in boxes, highlights, comments left out, math as its source, embeds of other notes
/// framed (RenderedNote+Obsidian.swift, ObsidianSource.swift). Links keep the
/// ``NoteLink`` they came from and where they lead; club photos become picture slots, rows the
/// app draws the photo over. The layout is pure (no terminal): the app draws it, `byteclub cat
/// --render` prints it.
public struct RenderedNote: Sendable {
    /// The rows, top to bottom.
    public var lines: [RenderedLine]
    /// Every link and picture reference (each paragraph's Markdown links, then its wiki links);
    /// runs point into it.
    public var links: [RenderedLink]
    /// The photos drawn in the note, each over ``RenderedPicture/rows`` lines.
    public var pictures: [RenderedPicture]
    /// The width it was laid out for; lines of wide tables are wider (see ``RenderedLine/scrolls``).
    public var width: Int

    public init(lines: [RenderedLine] = [], links: [RenderedLink] = [], pictures: [RenderedPicture] = [], width: Int = 0) {
        self.lines = lines
        self.links = links
        self.pictures = pictures
        self.width = width
    }

    /// Lays `text` out `width` cells wide.
    public static func layout(_ text: String, width: Int, options: RenderOptions = RenderOptions()) -> RenderedNote {
        var text = text
        return text.withUTF8 { layout(utf8: $0, width: width, options: options) }
    }

    public static func layout(utf8 bytes: UnsafeBufferPointer<UInt8>, width: Int, options: RenderOptions = RenderOptions()) -> RenderedNote {
        var layout = RenderLayout(width: max(8, width), options: options)
        if options.plain {
            layout.plain(String(decoding: bytes, as: UTF8.self))
        } else {
            if let matter = NoteFrontMatter(utf8: bytes) {
                layout.frontMatter(matter, raw: String(decoding: UnsafeBufferPointer(rebasing: bytes[..<matter.bodyOffset]), as: UTF8.self))
            }
            // Obsidian's comments, math, highlights and block ids are rewritten into what cmark
            // parses (ObsidianSource), each row then given back its line in the note.
            if var source = ObsidianSource.prepare(bytes) {
                source.text.withUTF8 { rewritten in
                    MarkdownParser.withDocument(ofUTF8: rewritten, options: BC_CMARK_OPT_SOURCEPOS | BC_CMARK_OPT_FOOTNOTES) { layout.document($0) }
                }
                let map = source.lineMap
                for index in layout.note.lines.indices where map.indices.contains(layout.note.lines[index].sourceLine) {
                    layout.note.lines[index].sourceLine = map[layout.note.lines[index].sourceLine]
                }
            } else {
                MarkdownParser.withDocument(ofUTF8: bytes, options: BC_CMARK_OPT_SOURCEPOS | BC_CMARK_OPT_FOOTNOTES) { layout.document($0) }
            }
            // cmark ends a line at a lone CR too; the editor only at LF: a row never names a line
            // past the note's last.
            if bytes.contains(0x0D) {
                var last = 0
                for byte in bytes where byte == 0x0A { last += 1 }
                for index in layout.note.lines.indices where layout.note.lines[index].sourceLine > last {
                    layout.note.lines[index].sourceLine = last
                }
            }
        }
        return layout.note
    }

    /// The lines as plain text, trailing blanks trimmed, control characters as U+FFFD (tests,
    /// `cat --render` to a pipe).
    public var plainText: String {
        lines.map { line in
            var text = Self.printable(line.text)
            while text.last == " " { text.removeLast() }
            return text
        }.joined(separator: "\n")
    }
}

/// How a note is laid out.
public struct RenderOptions: Sendable {
    /// The club folder the note is in, which relative links resolve against.
    public var folder = "/byteclub"
    /// How many rows a club photo takes (fitted into the width and these rows), for a caller
    /// that draws pictures over its slot (the app's rendered view). 0, the default, makes no
    /// slot: the photo is its alt text (else its name) in brackets, once, as a picture from
    /// elsewhere is; `byteclub cat --render` draws no pictures, and printed no rows for them.
    public var pictureRows = 0
    /// A terminal cell in pixels as the caller assumes it, for sized pictures
    /// (`![[x.png|300]]`: 300 pixels over a cell's width).
    public var cellPixelWidth = 10
    public var cellPixelHeight = 20
    /// What the caller knows of pictures, by club path in lower case: their aspect ratio (for
    /// one sized by its width), or that one cannot be drawn (one row, not a slot).
    public var knownPictures: [String: KnownPicture] = [:]
    /// A `.txt` note: its lines as they are, wrapped, with no Markdown.
    public var plain = false
    /// Cells one scalar takes: 2 (CJK, most emoji), 1, 0 (combining marks, joiners) or -1
    /// (a control, drawn as one cell). The terminal's `TextWidth.of` in the app and the CLI;
    /// by default a small table good for tests without a terminal.
    public var cellWidth: @Sendable (Unicode.Scalar) -> Int = RenderOptions.approximateWidth
    /// The note's own club path, if it has one: an embed of it (`![[Itself]]`) is a loop.
    public var path: String?
    /// The text of a note an embed (`![[Note]]`, `![[Note#Heading]]`) names, found by the
    /// caller (the app from its copies, `cat --render` from the club); nil: the embed is drawn
    /// as a link to it. Called while laying out, so it must answer at once.
    public var embeds: (@Sendable (NoteLink) -> EmbeddedNote?)?
    /// How deep embeds inside embeds are drawn; deeper ones are a line saying so.
    public var embedDepth = 3
    /// The notes being embedded around this layout, outermost first (lower-case paths): one of
    /// them embedded again is a loop, drawn as one line.
    var embedChain: [String] = []
    /// How many embeds one layout draws; an embedded note's layout gets an eighth, so a note of
    /// many embeds of embeds stays bounded (a few hundred layouts at the very most).
    var embedBudget = 32

    public init(folder: String = "/byteclub", pictureRows: Int = 0, plain: Bool = false) {
        self.folder = folder
        self.pictureRows = pictureRows
        self.plain = plain
    }

    /// East Asian wide ranges as 2, combining marks and joiners as 0, the rest 1.
    public static let approximateWidth: @Sendable (Unicode.Scalar) -> Int = { scalar in
        let v = scalar.value
        if v < 0x300 { return v < 0x20 || (v >= 0x7F && v < 0xA0) ? -1 : 1 }
        if (0x300...0x36F).contains(v) || v == 0x200D || (0xFE00...0xFE0F).contains(v) { return 0 }
        if (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
            || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v) || (0x1F900...0x1F9FF).contains(v)
            || (0x20000...0x3FFFD).contains(v) {
            return 2
        }
        return 1
    }
}

/// One row of a rendered note.
public struct RenderedLine: Hashable, Sendable {
    public var runs: [RenderedRun]
    /// Cells the runs take.
    public var width: Int
    /// A row of a table wider than the note: drawn shifted by the view's sideways scroll.
    public var scrolls: Bool
    /// The photo (index into ``RenderedNote/pictures``) whose slot this row is part of.
    public var picture: Int?
    /// The source line (from 0) of the block this row belongs to, to keep the place when the
    /// view and the editor swap.
    public var sourceLine: Int

    public init(runs: [RenderedRun] = [], width: Int = 0, scrolls: Bool = false, picture: Int? = nil, sourceLine: Int = 0) {
        self.runs = runs
        self.width = width
        self.scrolls = scrolls
        self.picture = picture
        self.sourceLine = sourceLine
    }

    /// The row's text without styles.
    public var text: String { runs.map(\.text).joined() }
}

/// A stretch of one row in one style.
public struct RenderedRun: Hashable, Sendable {
    public var text: String
    public var style: RenderedStyle
    /// The link (index into ``RenderedNote/links``) this text belongs to.
    public var link: Int?

    public init(_ text: String, style: RenderedStyle = [], link: Int? = nil) {
        self.text = text
        self.style = style
        self.link = link
    }
}

/// What a run is, for the theme to style; several can hold (a strong link in a heading).
public struct RenderedStyle: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let heading = RenderedStyle(rawValue: 1 << 0)
    public static let emphasis = RenderedStyle(rawValue: 1 << 1)
    public static let strong = RenderedStyle(rawValue: 1 << 2)
    public static let strikethrough = RenderedStyle(rawValue: 1 << 3)
    /// Inline code.
    public static let code = RenderedStyle(rawValue: 1 << 4)
    /// The text inside a code box.
    public static let codeBlock = RenderedStyle(rawValue: 1 << 5)
    public static let link = RenderedStyle(rawValue: 1 << 6)
    /// A list's bullet or number, a task's box.
    public static let marker = RenderedStyle(rawValue: 1 << 7)
    /// A done task's box.
    public static let done = RenderedStyle(rawValue: 1 << 8)
    /// A block quote's bar and text.
    public static let quote = RenderedStyle(rawValue: 1 << 9)
    /// Box and table lines, thematic breaks.
    public static let border = RenderedStyle(rawValue: 1 << 10)
    public static let tableHeader = RenderedStyle(rawValue: 1 << 11)
    /// Said about the text rather than part of it: a link's address, footnote marks, alt text.
    public static let muted = RenderedStyle(rawValue: 1 << 12)
    /// `==highlighted==` text.
    public static let highlight = RenderedStyle(rawValue: 1 << 13)
    /// A callout's box and title (`> [!note] Title`).
    public static let callout = RenderedStyle(rawValue: 1 << 14)
    /// Another note's text drawn inside this one (`![[Note]]`), and its frame.
    public static let embed = RenderedStyle(rawValue: 1 << 15)
}

/// The text of a note an embed draws, as ``RenderOptions/embeds`` finds it.
public struct EmbeddedNote: Sendable, Hashable {
    /// Its club path ("/byteclub/Trip plan.md").
    public var path: String
    public var text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

/// A link or picture reference in the rendered note.
public struct RenderedLink: Hashable, Sendable {
    public var link: NoteLink
    public var target: NoteLinkTarget

    public init(link: NoteLink, target: NoteLinkTarget) {
        self.link = link
        self.target = target
    }
}

/// A club photo drawn in the note: its slot's first row and height, and what to show without it.
public struct RenderedPicture: Hashable, Sendable {
    /// The photo's club path ("/byteclub/photos/desk.jpg").
    public var path: String
    public var alt: String
    /// The link (index into ``RenderedNote/links``) the picture came from.
    public var link: Int
    public var line: Int
    public var rows: Int
    /// A sized picture's width in cells (`![[x.png|300]]`); nil: the slot's whole width.
    public var columns: Int?
}
